package io.impressiondedup.state.bloom;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@link BloomPageStore} of heap arrays, one sparse page table per layer: pages nobody wrote are
 * never allocated. For filters used outside Flink state (tests, benchmarks, the planner's checks).
 */
public final class HeapBloomPages implements BloomPageStore {

    private static final long[][] NO_PAGES = new long[0][];

    private final List<long[][]> layers = new ArrayList<>();

    @Override
    public long[] readPage(int layer, int page) {
        if (layer >= layers.size()) {
            return null;
        }
        long[][] pages = layers.get(layer);
        return page < pages.length ? pages[page] : null;
    }

    @Override
    public void writePage(int layer, int page, long[] words) {
        while (layers.size() <= layer) {
            layers.add(NO_PAGES);
        }
        long[][] pages = layers.get(layer);
        if (page >= pages.length) {
            pages = Arrays.copyOf(pages, Math.max(page + 1, pages.length * 2));
            layers.set(layer, pages);
        }
        pages[page] = words;
    }

    /** Pages that exist, over all layers. */
    public int allocatedPages() {
        int count = 0;
        for (long[][] pages : layers) {
            count += SparsePages.allocated(pages);
        }
        return count;
    }

    /** Bits set, over all layers (a full scan: for tests and reports, not the hot path). */
    public long bitCount() {
        long count = 0;
        for (long[][] pages : layers) {
            count += SparsePages.bitCount(pages);
        }
        return count;
    }
}
