package io.impressiondedup.state.bloom;

/**
 * A fixed-size blocked Bloom bitset on the heap, addressed as pages that are allocated on first
 * write. It is one layer of a {@link ScalableBloomFilter} held in memory, and the structure the
 * benchmarks compare with other filters.
 *
 * <p>Elements are given as their two probe hashes ({@code FingerprintScheme#probeHash1/2}), so the
 * cost of digesting a request id is paid once per record, not once per filter.
 */
public final class BlockedBloomBitset implements BloomPageStore {

    private final BloomGeometry geometry;
    private final long[][] pages;

    public BlockedBloomBitset(BloomGeometry geometry) {
        this.geometry = geometry;
        this.pages = new long[geometry.numPages()][];
    }

    /** A bitset sized by {@link BloomSizing#size} for {@code expectedInsertions} at {@code fpp}. */
    public static BlockedBloomBitset create(long expectedInsertions, double fpp, int blocksPerPage) {
        return new BlockedBloomBitset(BloomSizing.size(expectedInsertions, fpp, blocksPerPage));
    }

    public BloomGeometry geometry() {
        return geometry;
    }

    /**
     * Inserts the element.
     *
     * @return whether it was new: some bit changed, so it was not (even falsely) contained before
     */
    public boolean put(long h1, long h2) {
        return geometry.put(this, 0, h1, h2);
    }

    public boolean mightContain(long h1, long h2) {
        return geometry.mightContain(this, 0, h1, h2);
    }

    // The checks below are plain ifs, not checkArgument: this is the per-insert path, and a varargs
    // message array with boxed ints would allocate on every call.

    @Override
    public long[] readPage(int layer, int page) {
        if (layer != 0) {
            throw wrongLayer(layer);
        }
        return pages[page];
    }

    @Override
    public void writePage(int layer, int page, long[] words) {
        if (layer != 0) {
            throw wrongLayer(layer);
        }
        if (pages[page] != words) {
            if (words.length != geometry.wordsInPage(page)) {
                throw new IllegalArgumentException(
                        "page " + page + " must have " + geometry.wordsInPage(page) + " words, but has " + words.length);
            }
            pages[page] = words;
        }
    }

    /** Pages that have been written; the others take no memory. */
    public int allocatedPages() {
        return SparsePages.allocated(pages);
    }

    /** Number of set bits (a full scan). */
    public long bitCount() {
        return SparsePages.bitCount(pages);
    }

    private static IllegalArgumentException wrongLayer(int layer) {
        return new IllegalArgumentException("a BlockedBloomBitset has one layer, 0, but layer " + layer + " was asked for");
    }
}
