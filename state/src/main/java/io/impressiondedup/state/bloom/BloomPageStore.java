package io.impressiondedup.state.bloom;

/**
 * Where the pages of a (possibly layered) Bloom filter live: arrays on the heap, or entries of a
 * Flink {@code MapState} so that one lookup reads one page from RocksDB instead of the whole filter.
 *
 * <p>A page is {@link BloomGeometry#wordsInPage} words of a {@code long[]}, from {@link #pageOffset()}: a whole array
 * (offset 0), or a stretch of a larger one ({@code PageGroup}'s, which holds the pages of several filters). A page that
 * was never written reads as {@code null} and stands for all zeros.
 */
public interface BloomPageStore {

    /**
     * The array holding a page's words from {@link #pageOffset()} on, or {@code null} if the page was never written.
     * Callers may modify the page's words in it, and must then hand the array to {@link #writePage} for the change to
     * persist.
     */
    long[] readPage(int layer, int page);

    /** Where the page that {@link #readPage} last returned begins in its array: 0 unless the store packs pages together. */
    default int pageOffset() {
        return 0;
    }

    /**
     * Writes a page: the array {@link #readPage} returned, its page changed in place, or a new page's words (a whole array
     * of {@link BloomGeometry#wordsInPage} words).
     */
    void writePage(int layer, int page, long[] words);
}
