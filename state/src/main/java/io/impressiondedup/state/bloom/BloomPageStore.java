package io.impressiondedup.state.bloom;

/**
 * Where the pages of a (possibly layered) Bloom filter live: arrays on the heap, or entries of a
 * Flink {@code MapState} so that one lookup reads one page from RocksDB instead of the whole filter.
 *
 * <p>Pages are plain {@code long[]} of the length {@link BloomGeometry#wordsInPage} gives. A page that
 * was never written reads as {@code null} and stands for all zeros.
 */
public interface BloomPageStore {

    /**
     * The words of a page, or {@code null} if it was never written. Callers may modify the returned
     * array, and must then hand it to {@link #writePage} for the change to persist.
     */
    long[] readPage(int layer, int page);

    void writePage(int layer, int page, long[] words);
}
