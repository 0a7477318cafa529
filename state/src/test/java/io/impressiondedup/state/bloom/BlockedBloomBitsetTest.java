package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.TestElements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BlockedBloomBitsetTest {

    private static final int N = 1_000_000;

    @Test
    void neverForgetsAnInsertedElement() {
        BlockedBloomBitset bitset = BlockedBloomBitset.create(N, 0.001, 32);
        long[][] elements = new TestElements(11).next(N);
        for (int i = 0; i < N; i++) {
            bitset.put(elements[0][i], elements[1][i]);
        }

        int falseNegatives = 0;
        for (int i = 0; i < N; i++) {
            if (!bitset.mightContain(elements[0][i], elements[1][i])) {
                falseNegatives++;
            }
        }
        assertThat(falseNegatives).isZero();
    }

    @ParameterizedTest(name = "p = {0}")
    @ValueSource(doubles = {0.01, 0.001})
    void measuredFppAtDesignCapacityIsWithinHalfToElevenTenthsOfTheTarget(double fpp) {
        BlockedBloomBitset bitset = BlockedBloomBitset.create(N, fpp, 32);
        TestElements elements = new TestElements(Double.doubleToLongBits(fpp));
        for (int i = 0; i < N; i++) {
            long[] h = elements.next();
            bitset.put(h[0], h[1]);
        }

        double measured = measuredFpp(bitset, elements, 2_000_000);

        assertThat(measured).isBetween(0.5 * fpp, 1.1 * fpp);
    }

    @Test
    void putReportsWhetherTheElementWasNew() {
        BlockedBloomBitset bitset = BlockedBloomBitset.create(1000, 0.001, 1);
        long[] h = new TestElements(3).next();

        assertThat(bitset.put(h[0], h[1])).isTrue();
        assertThat(bitset.put(h[0], h[1])).isFalse();
        assertThat(bitset.mightContain(h[0], h[1])).isTrue();
    }

    @Test
    void pagesNobodyWroteAreNotAllocated() {
        BlockedBloomBitset bitset = BlockedBloomBitset.create(1_000_000, 0.001, 4);
        TestElements elements = new TestElements(5);
        for (int i = 0; i < 100; i++) {
            long[] h = elements.next();
            bitset.put(h[0], h[1]);
        }

        assertThat(bitset.geometry().numPages()).isGreaterThan(7000);
        assertThat(bitset.allocatedPages()).isBetween(95, 100); // a few inserts may share a page
    }

    @Test
    void aLookupReadsOnePageAndAnInsertWritesAtMostOne() {
        BloomGeometry geometry = BloomSizing.size(100_000, 0.001, 4);
        CountingPages pages = new CountingPages();
        long[] h = new TestElements(9).next();

        geometry.put(pages, 0, h[0], h[1]);
        geometry.mightContain(pages, 0, h[0], h[1]);

        assertThat(pages.reads).isEqualTo(2);
        assertThat(pages.writes).isEqualTo(1);
    }

    @Test
    void theLastPageHoldsOnlyTheRemainingBlocks() {
        BloomGeometry geometry = new BloomGeometry(70, 7, 32);
        assertThat(geometry.numPages()).isEqualTo(3);
        assertThat(geometry.wordsInPage(0)).isEqualTo(256);
        assertThat(geometry.wordsInPage(2)).isEqualTo(6 * 8);

        BlockedBloomBitset bitset = new BlockedBloomBitset(geometry);
        assertThatThrownBy(() -> bitset.writePage(0, 2, new long[256])).hasMessageContaining("48 words");
    }

    static double measuredFpp(BlockedBloomBitset bitset, TestElements fresh, int queries) {
        int falsePositives = 0;
        for (int i = 0; i < queries; i++) {
            long[] h = fresh.next();
            if (bitset.mightContain(h[0], h[1])) {
                falsePositives++;
            }
        }
        return (double) falsePositives / queries;
    }

    private static final class CountingPages implements BloomPageStore {
        private final HeapBloomPages delegate = new HeapBloomPages();
        int reads;
        int writes;

        @Override
        public long[] readPage(int layer, int page) {
            reads++;
            return delegate.readPage(layer, page);
        }

        @Override
        public void writePage(int layer, int page, long[] words) {
            writes++;
            delegate.writePage(layer, page, words);
        }
    }
}
