package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.plan.DedupPlan;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintStoreSizingTest {

    /** The bench scale of STATE-FOOTPRINT.md: 400,146 a day over 128 shards, defaults otherwise. */
    static final DedupPlan BENCH_PLAN = DedupPlan.builder().capacityPerBucket(400_146).shards(128).fpp(0.001).build();

    @Test
    void pagesHoldAboutOneKilobyteAtThePeakOnPlan() {
        FingerprintStoreSizing sizing = FingerprintStoreSizing.forPlan(BENCH_PLAN);
        assertThat(BENCH_PLAN.capacityPerShard()).isEqualTo(3_350);
        assertThat(sizing.bucketsChecked()).isEqualTo(5);
        assertThat(sizing.pages()).isEqualTo(24); // ceil(4 x 3,350 x 14.44 bits / 8 / 1,024)
        assertThat((double) sizing.valueRange(0) * sizing.pages() / sizing.capacityPerShard()).isCloseTo(5_555.6, org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void eachBandTakesAtMostItsShareOfTheBucketsBudget() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(10_000, 0.001, 5, 71);
        double share = 0.001 / 5;
        assertThat(sizing.bucketFpp(10_000)).isLessThanOrEqualTo(0.9 * share).isGreaterThan(0.8999 * share);
        assertThat(sizing.bucketFpp(20_000) - sizing.bucketFpp(10_000)).isLessThanOrEqualTo(0.1 * share / 2);
        assertThat(sizing.bucketFpp(40_000) - sizing.bucketFpp(20_000)).isLessThanOrEqualTo(0.1 * share / 4);
        assertThat(sizing.bucketFpp(40_000)).isLessThanOrEqualTo(0.975 * share);
        assertThat(sizing.bucketFpp(10_000L << (sizing.maxBand() - 1))).isLessThan(share);
        assertThat(sizing.valueRange(1)).isBetween(4 * 4 * sizing.valueRange(0) / 2 - 18, 9 * 2 * sizing.valueRange(0) + 18);
    }

    @Test
    void theBandDoublesWithTheShardBucketsCount() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(1_000, 0.001, 5, 10);
        assertThat(sizing.bandFor(0)).isZero();
        assertThat(sizing.bandFor(999)).isZero();
        assertThat(sizing.bandFor(1_000)).isEqualTo(1);
        assertThat(sizing.bandFor(1_999)).isEqualTo(1);
        assertThat(sizing.bandFor(2_000)).isEqualTo(2);
        assertThat(sizing.bandFor(3_999)).isEqualTo(2);
        assertThat(sizing.bandFor(4_000)).isEqualTo(3);
        assertThat(sizing.bandFor(Long.MAX_VALUE)).isEqualTo(sizing.maxBand());
        assertThat(sizing.maxBand()).isEqualTo(13); // U_13 = 4.5 x 4^13 x U_0 of 555,556 is under 2^48, U_14 is not
    }

    @Test
    void aBucketFillsItsBandsInOrderAndTheLastTakesTheRest() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(1_000, 0.001, 5, 10);
        assertThat(sizing.bandFills(0)).containsOnly(0L);
        assertThat(sizing.bandFills(1_000)).startsWith(1_000, 0);
        assertThat(sizing.bandFills(1_001)).startsWith(1_000, 1, 0);
        assertThat(sizing.bandFills(4_500)).startsWith(1_000, 1_000, 2_000, 500, 0);
        long beyond = (1_000L << (sizing.maxBand() - 1)) * 3;
        long[] fills = sizing.bandFills(beyond);
        assertThat(fills).hasSize(sizing.maxBand() + 1);
        assertThat(fills[sizing.maxBand()]).isEqualTo(beyond - (1_000L << (sizing.maxBand() - 1)));
        assertThat(java.util.Arrays.stream(fills).sum()).isEqualTo(beyond);
        assertThat(sizing.expectedBits(0, 0)).isZero();
    }

    @Test
    void bandsStopWhereTheirRangeWouldPassTwoToThe48() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(1_000_000, 1e-6, 5, 1);
        assertThat(sizing.valueRange(sizing.maxBand())).isLessThanOrEqualTo(FingerprintStoreSizing.MAX_VALUE_RANGE);
        assertThat(sizing.maxBand()).isLessThan(FingerprintStoreSizing.MAX_BAND);
        assertThatThrownBy(() -> new FingerprintStoreSizing(1L << 40, 1e-9, 5, 1)).hasMessageStartingWith(
                "a store for 1099511627776 impressions per shard-bucket in 1 pages at fpp 1.0E-9 needs a value range above 2^48");
    }

    @Test
    void scalingMapsTheUnsignedHashOntoTheRange() {
        assertThat(FingerprintStoreSizing.scale(0, 1000)).isZero();
        assertThat(FingerprintStoreSizing.scale(-1L, 1000)).isEqualTo(999);
        assertThat(FingerprintStoreSizing.scale(Long.MIN_VALUE, 1000)).isEqualTo(500);
        assertThat(FingerprintStoreSizing.scale(Long.MAX_VALUE, 1000)).isEqualTo(499);
    }

    @Test
    void badInputsAreRefusedQuotingThem() {
        assertThatThrownBy(() -> new FingerprintStoreSizing(0, 0.001, 5, 1)).hasMessage("capacity per shard must be positive, but was 0");
        assertThatThrownBy(() -> new FingerprintStoreSizing(1, 0.5, 5, 1)).hasMessage("fpp must be in (0, 0.5), but was 0.5");
        assertThatThrownBy(() -> new FingerprintStoreSizing(1, 0.001, 5, 0)).hasMessage("pages per shard must be positive, but was 0");
        assertThatThrownBy(() -> new FingerprintStoreSizing(1, 0.001, 5, 1).valueRange(18)).hasMessage(
                "band must be in [0, 16] or 17, but was 18");
    }

    /**
     * The overflow range is chosen so that an overflow section holding every one of its values is no larger than the
     * page's share of a full band 0: the overflow sections of a bucket never pass its planned state.
     */
    @Test
    void aSaturatedOverflowSectionTakesNoMoreThanItsPagesShareOfAFullBandZero() {
        for (FingerprintStoreSizing sizing : List.of(FingerprintStoreSizing.forPlan(BENCH_PLAN), new FingerprintStoreSizing(120, 0.1, 5, 1),
                new FingerprintStoreSizing(1_000_000, 0.0001, 5, 300))) {
            long range = sizing.overflowRange();
            long[] every = new long[(int) range];
            for (int v = 0; v < every.length; v++) {
                every[v] = v;
            }
            long saturatedBytes = (EliasFanoSection.of(range, every).encodedBits() + 7) / 8;
            assertThat(saturatedBytes).as("%s", sizing).isLessThanOrEqualTo(sizing.plannedBytes() / sizing.pages());
            assertThat(saturatedBytes).as("and not much smaller: the overflow's FPP climbs no faster than it must")
                    .isGreaterThan(sizing.plannedBytes() / sizing.pages() * 3 / 4);
        }
    }

    /**
     * The bytes the shard state cap counts for a band are those a full band takes in memory: its sections filled with
     * random values across the pages, each section's directory entry and padding counted, within 3% (one bit more per entry is 6.5%).
     */
    @Test
    void aFullBandTakesTheBytesTheCapCountsForIt() {
        FingerprintStoreSizing sizing = FingerprintStoreSizing.forPlan(BENCH_PLAN);
        java.util.Random random = new java.util.Random(5);
        FingerprintPage[] pages = new FingerprintPage[sizing.pages()];
        for (int p = 0; p < pages.length; p++) {
            pages[p] = new FingerprintPage();
        }
        long held = 0;
        long[] bandBytes = new long[3];
        while (held < sizing.capacityPerShard() * 4) {
            int band = sizing.bandFor(held);
            if (pages[sizing.pageOf(random.nextLong())].insert(1, band, random.nextLong(), sizing)) {
                held++;
            }
            if (held == sizing.capacityPerShard() || held == 2 * sizing.capacityPerShard() || held == 4 * sizing.capacityPerShard()) {
                long words = 0;
                for (FingerprintPage page : pages) {
                    words += page.copy().heapBytes() - 40; // the page's words without spare ones
                }
                bandBytes[band] = words * 8 / 8 - java.util.Arrays.stream(bandBytes).sum();
            }
        }
        for (int band = 0; band < 3; band++) {
            assertThat((double) bandBytes[band]).as("band %s", band)
                    .isCloseTo(sizing.fullBandBytes(band), org.assertj.core.data.Percentage.withPercentage(3));
        }
    }
}
