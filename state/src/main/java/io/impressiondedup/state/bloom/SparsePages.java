package io.impressiondedup.state.bloom;

/**
 * Counts over an array of Bloom pages in which {@code null} is a page never written: such a page takes
 * no memory and has no bit set. Full scans, for tests and reports, not the hot path.
 */
final class SparsePages {

    private SparsePages() {}

    /** Pages that have been written. */
    static int allocated(long[][] pages) {
        int count = 0;
        for (long[] page : pages) {
            if (page != null) {
                count++;
            }
        }
        return count;
    }

    /** Bits set in the written pages. */
    static long bitCount(long[][] pages) {
        long count = 0;
        for (long[] page : pages) {
            if (page != null) {
                for (long word : page) {
                    count += Long.bitCount(word);
                }
            }
        }
        return count;
    }
}
