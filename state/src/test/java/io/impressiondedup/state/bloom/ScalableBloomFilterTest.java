package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.impressiondedup.state.TestElements;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalableBloomFilterTest {

    private static final FingerprintScheme SCHEME = FingerprintScheme.withKeyBits(64);

    @Test
    void atFourTimesItsCapacityTheScalableFilterKeepsItsFppWhileAFixedOneDoesNot() {
        int capacity = 250_000;
        double fpp = 0.001;
        ScalableBloomFilter scalable = ScalableBloomFilter.create(SCHEME, capacity, fpp, 32);
        HeapBloomPages pages = new HeapBloomPages();
        BlockedBloomBitset fixed = BlockedBloomBitset.create(capacity, fpp, 32);
        TestElements elements = new TestElements(21);
        for (int i = 0; i < 4 * capacity; i++) {
            long[] h = elements.next();
            scalable.putIfAbsent(h[0], h[1], pages);
            fixed.put(h[0], h[1]);
        }

        int queries = 2_000_000;
        int scalableFalsePositives = 0;
        int fixedFalsePositives = 0;
        for (int i = 0; i < queries; i++) {
            long[] h = elements.next();
            scalableFalsePositives += scalable.mightContain(h[0], h[1], pages) ? 1 : 0;
            fixedFalsePositives += fixed.mightContain(h[0], h[1]) ? 1 : 0;
        }

        assertThat(scalable.layerCount()).isEqualTo(3);
        assertThat((double) scalableFalsePositives / queries).isLessThanOrEqualTo(fpp);
        assertThat((double) fixedFalsePositives / queries).isGreaterThan(10 * fpp);
    }

    @Test
    void eachNewLayerHasTwiceTheCapacityAndHalfTheFpp() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 1000, 0.01, 1);
        HeapBloomPages pages = new HeapBloomPages();
        TestElements elements = new TestElements(2);
        for (int i = 0; i < 7000; i++) {
            long[] h = elements.next();
            filter.putIfAbsent(h[0], h[1], pages);
        }

        assertThat(filter.layers()).extracting(BloomLayer::capacity).containsExactly(1000L, 2000L, 4000L);
        assertThat(filter.layers()).extracting(BloomLayer::fpp).containsExactly(0.005, 0.0025, 0.00125);
        assertThat(filter.layers().get(0).inserted()).isEqualTo(1000);
        assertThat(filter.layers().get(1).inserted()).isEqualTo(2000);
    }

    @Test
    void theFppBudgetOfAllLayersSumsToAtMostTheTarget() {
        double sum = 0;
        for (int layer = 0; layer < ScalableBloomFilter.MAX_LAYERS; layer++) {
            sum += ScalableBloomFilter.layerFpp(0.001, layer);
        }
        assertThat(sum).isLessThan(0.001);
    }

    @Test
    void neverForgetsAnElementWhateverLayerItWentTo() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 10_000, 0.001, 8);
        HeapBloomPages pages = new HeapBloomPages();
        long[][] elements = new TestElements(4).next(100_000);
        for (int i = 0; i < elements[0].length; i++) {
            filter.putIfAbsent(elements[0][i], elements[1][i], pages);
        }

        assertThat(filter.layerCount()).isEqualTo(4);
        for (int i = 0; i < elements[0].length; i++) {
            assertThat(filter.mightContain(elements[0][i], elements[1][i], pages)).as("element %s", i).isTrue();
        }
    }

    @Test
    void insertAbsentReportsTheInsertThatAddedALayer() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 2, 0.01, 1);
        HeapBloomPages pages = new HeapBloomPages();
        TestElements elements = new TestElements(8);

        long[] a = elements.next();
        long[] b = elements.next();
        long[] c = elements.next();
        assertThat(filter.insertAbsent(a[0], a[1], pages)).isFalse();
        assertThat(filter.insertAbsent(b[0], b[1], pages)).isFalse();
        assertThat(filter.insertAbsent(c[0], c[1], pages)).isTrue();
        assertThat(filter.layerCount()).isEqualTo(2);
        assertThat(filter.inserted()).isEqualTo(3);
    }

    @Test
    void estimatedFppTracksTheFillAndStaysUnderTheTargetWhenFull() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 50_000, 0.01, 8);
        HeapBloomPages pages = new HeapBloomPages();
        assertThat(filter.estimatedFpp()).isZero();
        TestElements elements = new TestElements(6);
        for (int i = 0; i < 50_000; i++) {
            long[] h = elements.next();
            filter.insertAbsent(h[0], h[1], pages);
        }
        assertThat(filter.estimatedFpp()).isCloseTo(0.005, within(0.0005));
        assertThat(filter.loadFactor()).isEqualTo(1.0);
    }

    @Test
    void copiesAreIndependentOfTheOriginal() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 10, 0.01, 1);
        ScalableBloomFilter copy = filter.copy();
        long[] h = new TestElements(1).next();
        filter.insertAbsent(h[0], h[1], new HeapBloomPages());

        assertThat(copy.inserted()).isZero();
        assertThat(copy).isNotEqualTo(filter);
    }

    @Test
    void aFilterRefusedALayerKeepsItsSizeOverFillsItsNewestLayerAndShowsTheRisingFpp() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 1000, 0.01, 1);
        HeapBloomPages pages = new HeapBloomPages();
        TestElements elements = new TestElements(9);
        long layer1 = filter.nextLayerBytes();
        List<Insertion> outcomes = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            long[] h = elements.next();
            if (!filter.mightContain(h[0], h[1], pages)) {
                outcomes.add(filter.insertAbsent(h[0], h[1], pages, layer1)); // room for layer 1 only
            }
        }

        assertThat(filter.layerCount()).isEqualTo(2);
        assertThat(filter.growthBytes()).isEqualTo(layer1);
        assertThat(outcomes).containsOnlyOnce(Insertion.GREW).contains(Insertion.OVER_FILLED);
        assertThat(outcomes.indexOf(Insertion.OVER_FILLED)).as("over-filling starts once layers 0 and 1 are full").isEqualTo(3000);
        assertThat(filter.layers().get(1).inserted()).isGreaterThan(2 * filter.layers().get(1).capacity());
        assertThat(filter.estimatedFpp()).isGreaterThan(0.05);
    }

    @Test
    void aLayerTooLargeToAddressIsRefusedInsteadOfFailingTheInsert() {
        // 64-byte pages (one block each): a page address holds 2^24 blocks. Layer 0 needs about 2M blocks,
        // layer 3 (8x the capacity at an eighth of the FPP) about 20M: more than can be addressed.
        List<BloomLayer> layers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            BloomGeometry geometry = ScalableBloomFilter.layerGeometry(60_000_000, 0.001, 1, i);
            long capacity = ScalableBloomFilter.layerCapacity(60_000_000, i);
            layers.add(new BloomLayer(geometry, capacity, ScalableBloomFilter.layerFpp(0.001, i), capacity));
        }
        ScalableBloomFilter filter = ScalableBloomFilter.restore(SCHEME, 60_000_000, 0.001, 1, layers);
        long[] h = new TestElements(10).next();

        assertThat(filter.nextLayerBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(filter.insertAbsent(h[0], h[1], new HeapBloomPages(), Long.MAX_VALUE)).isEqualTo(Insertion.OVER_FILLED);
        assertThat(filter.insertAbsent(h[0], h[1], new HeapBloomPages())).isFalse();
        assertThat(filter.layerCount()).isEqualTo(3);
    }

    /** Inserts {@code count} absent elements one by one, as the operator does, with {@code growthAllowance} for growth. */
    private static ScalableBloomFilter insertedOneByOne(long count, long growthAllowance) {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 1000, 0.01, 1);
        HeapBloomPages pages = new HeapBloomPages();
        TestElements elements = new TestElements(31);
        for (long i = 0; i < count; i++) {
            long[] h = elements.next();
            filter.insertAbsent(h[0], h[1], pages, growthAllowance - filter.growthBytes());
        }
        return filter;
    }

    @Test
    void aFilterFilledToACountHasTheLayersAndFillsThatInsertingThatManyLeaves() {
        long layer1 = ScalableBloomFilter.layerGeometry(1000, 0.01, 1, 1).bytes();
        for (long count : new long[] {0, 1, 999, 1000, 1001, 3000, 3001, 9000}) {
            for (long allowance : new long[] {Long.MAX_VALUE, layer1, 0}) {
                ScalableBloomFilter grown = insertedOneByOne(count, allowance);
                ScalableBloomFilter filled = ScalableBloomFilter.filledTo(SCHEME, 1000, 0.01, 1, count, allowance);
                assertThat(filled.layers()).as("%s inserts, %s bytes for growth", count, allowance).isEqualTo(grown.layers());
                assertThat(filled.estimatedFpp()).isEqualTo(grown.estimatedFpp());
            }
        }
    }

    @Test
    void theFppAfterTheFirstElementsIsTheFppTheFilterHadThen() {
        ScalableBloomFilter full = ScalableBloomFilter.filledTo(SCHEME, 1000, 0.01, 1, 9000, Long.MAX_VALUE);
        assertThat(full.layerCount()).isEqualTo(4);
        for (long count : new long[] {0, 1, 500, 1000, 1001, 2999, 3000, 3001, 7000, 9000}) {
            ScalableBloomFilter then = ScalableBloomFilter.filledTo(SCHEME, 1000, 0.01, 1, count, Long.MAX_VALUE);
            assertThat(full.estimatedFppAfter(count)).as("after %s", count).isEqualTo(then.estimatedFpp());
        }
        // Refused growth: the newest layer over-fills, and the FPP on the way follows it.
        ScalableBloomFilter capped = ScalableBloomFilter.filledTo(SCHEME, 1000, 0.01, 1, 9000, 0);
        assertThat(capped.layerCount()).isEqualTo(1);
        assertThat(capped.estimatedFppAfter(5000)).isEqualTo(ScalableBloomFilter.filledTo(SCHEME, 1000, 0.01, 1, 5000, 0).estimatedFpp())
                .isGreaterThan(0.1);
        assertThat(full.estimatedFppAfter(0)).isZero();
    }
}
