package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The shard state cap in the fingerprint format: one request id with as many ad ids as 100 and 20,000 times its shard's
 * plan (all in one shard, whatever the secret) opens growth bands until the cap, then goes to the bucket's overflow
 * sections, on both backends: the job never fails, the shard's state stays within {@code cap x} its planned state and the
 * page cache within its budget, and the false positives follow the FPP the bucket reports (FingerprintStoreSizing: each
 * fresh key matches with the chance {@code sum_i N_i / (P U_i)} of the bands and overflow at that moment, rising to 1).
 *
 * <p>The plan is small so that a flood 20,000 times over it is quick: 1,280 impressions a day over 128 shards, a shard
 * planned for {@code n0} = 23 per day; 20,000 times that is 460,000 ad ids.
 */
@Isolated // reads the operator's warnings, whichever test logs them
class FingerprintShardStateCapTest {

    private static final long BUCKET = T0 / DAY;
    /** The page cache's budget on RocksDB here: small, so that the flooded shard's pages alone would pass it. */
    private static final long CACHE_BYTES = 16 << 10;

    static Stream<Arguments> floods() {
        return Stream.of(Backend.values()).flatMap(b -> Stream.of(Arguments.of(b, 100), Arguments.of(b, 20_000)));
    }

    @ParameterizedTest(name = "{0}, {1}x over plan")
    @MethodSource("floods")
    void aShardFloodedFarPastItsPlanStaysWithinTheCapAndDropsFreshKeysAtTheFppItReports(Backend backend, int timesOverPlan)
            throws Exception {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_280).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                .stateFormat(StateFormat.FINGERPRINTS).build();
        DedupSettings settings = DedupSettings.builder().plan(plan).pageCacheBytes(backend == Backend.ROCKSDB ? CACHE_BYTES : 0).build();
        FingerprintStoreSizing sizing = FingerprintStoreSizing.forPlan(plan);
        long ads = timesOverPlan * plan.capacityPerShard();
        double expected = 0;
        double variance = 0;
        try (CapturedWarnings warnings = new CapturedWarnings(DedupOperator.class);
                DedupHarness h = DedupHarness.open(settings, backend)) {
            long bands = 0;
            long overflowed = 0;
            for (int i = 0; i < ads; i++) {
                // Each ad id is fresh: its chance of a false positive is the bucket's FPP at this moment, from its counts.
                double chance = sizing.bucketFpp(bands, overflowed);
                expected += chance;
                variance += chance * (1 - chance);
                long unique = h.counter(DedupMetrics.UNIQUE);
                long capped = h.counter(DedupMetrics.CAPPED_INSERTIONS);
                h.process(impression("attacker", "ad-" + i, T0 + HOUR + i % 1000));
                overflowed += h.counter(DedupMetrics.CAPPED_INSERTIONS) - capped;
                bands += h.counter(DedupMetrics.UNIQUE) - unique - (h.counter(DedupMetrics.CAPPED_INSERTIONS) - capped);
                if (i % 50_000 == 0) {
                    h.harness.getOutput().clear(); // the emitted records are not looked at: keep the heap small
                }
            }
            long falsePositives = h.counter(DedupMetrics.DUPLICATES);
            assertThat(h.counter(DedupMetrics.RECORDS_IN)).isEqualTo(ads);
            assertThat(h.counter(DedupMetrics.UNIQUE) + falsePositives).as("every record decided, none failed").isEqualTo(ads);
            assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).as("fingerprints sent to the overflow band").isPositive();
            // Six standard deviations of the sum of the fresh keys' Bernoulli trials, both ways, and one for rounding.
            assertThat((double) falsePositives).as("false positives among %s fresh keys, %s expected from the reported FPP", ads, expected)
                    .isBetween(expected - 6 * Math.sqrt(variance) - 1, expected + 6 * Math.sqrt(variance) + 1);

            h.snapshot(1); // flushes the directories and the cache, refreshes the gauges
            int attacked = h.shardKeyOf(impression("attacker", "ad-0", T0));
            FingerprintBucket flooded = (FingerprintBucket) h.storedDirectory(attacked).get(BUCKET);
            FingerprintPart part = flooded.parts().get(0);
            assertThat(part.inserted()).as("entries in the bands").isEqualTo(bands);
            assertThat(part.overflowed()).as("entries in the overflow band").isEqualTo(overflowed);
            assertThat((Double) h.gauge(DedupMetrics.ESTIMATED_FPP)).as("the gauge shows the flooded shard's FPP")
                    .isEqualTo(part.estimatedFpp()).isGreaterThan(plan.fpp());
            assertThat(part.growthBytes()).as("growth bands within the allowance")
                    .isLessThanOrEqualTo(sizing.shardGrowthAllowanceBytes(plan.shardStateCap(), plan.liveBuckets()));

            long capBytes = (long) (plan.shardStateCap() * plan.liveBuckets() * sizing.plannedBytes());
            long heapBytes = 0;
            long storedBytes = 0;
            for (FingerprintPage page : h.storedFingerprintPages(attacked).values()) {
                heapBytes += page.copy().heapBytes();
                storedBytes += page.encodedBytes();
            }
            assertThat(heapBytes).as("the flooded shard's pages on the heap, within cap x its planned state").isLessThanOrEqualTo(capBytes);
            assertThat(storedBytes).isLessThanOrEqualTo(capBytes);
            System.out.printf("%s, %,dx over plan: %,d false positives among %,d fresh keys (%,.1f expected from the reported FPP),"
                            + " %,d in the bands, %,d in the overflow band, FPP now %.4f; the shard's pages %,d B on the heap, %,d B"
                            + " serialized, cap %,d B%n", backend, timesOverPlan, falsePositives, ads, expected, bands, overflowed,
                    part.estimatedFpp(), heapBytes, storedBytes, capBytes);
            if (backend == Backend.ROCKSDB) {
                assertThat((Long) h.gauge(DedupMetrics.PAGE_CACHE_BYTES)).as("the page cache's heap").isPositive()
                        .isLessThanOrEqualTo(CACHE_BYTES);
            }
            assertThat(warnings.containing("shard state cap")).as("one warning for the shard and bucket").hasSize(1);
        }
    }

    /**
     * A section as large as a page may hold ({@code EliasFanoSection#MAX_STREAM_BITS}) takes no more values: a record
     * meant for it goes to the overflow band instead of failing the job (which would restart, read the same record and
     * fail again). Reached here with one page of a bucket sized for 4 million values, so that band 0 itself gets there.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(Backend.class)
    void aSectionAtTheLargestSizeAPageHoldsSendsTheNextInsertToTheOverflowBandInsteadOfFailing(Backend backend) throws Exception {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000).shards(1).fpp(0.01).stateFormat(StateFormat.FINGERPRINTS).build();
        FingerprintStoreSizing onePage = new FingerprintStoreSizing(4_000_000, 0.01, plan.bucketsChecked(), 1);
        long range = onePage.valueRange(0);
        int fits = 1; // the first count whose section cannot take one more: count - 1 could, so count values fit
        int full = Integer.MAX_VALUE / 2;
        while (full - fits > 1) {
            int middle = (fits + full) >>> 1;
            if (io.impressiondedup.state.fingerprints.EliasFanoSection.fitsOneMore(middle, range)) {
                fits = middle;
            } else {
                full = middle;
            }
        }
        int count = full;
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = i * (range / count); // distinct and sorted; a fresh key's value is one of them once in range / count
        }
        FingerprintPage page = new FingerprintPage();
        page.putSection(BUCKET, 0, io.impressiondedup.state.fingerprints.EliasFanoSection.of(range, values));
        io.impressiondedup.state.BucketFilters directory = new io.impressiondedup.state.BucketFilters();
        directory.put(BUCKET, new FingerprintBucket(java.util.List.of(new FingerprintPart(plan.fingerprintScheme(), onePage, 0, 1, count, 0))));
        DedupSettings settings = DedupSettings.builder().plan(plan).build();
        org.apache.flink.runtime.checkpoint.OperatorSubtaskState state;
        try (DedupHarness written = DedupHarness.open(settings, backend)) {
            int key = written.shardKeyOf(impression("any", "ad", T0));
            written.writeShardState(key, directory, java.util.Map.of(), java.util.Map.of(FingerprintBucket.pageKey(1, 0), page));
            state = written.snapshot(1);
        }
        try (DedupHarness h = DedupHarness.open(settings, backend, 1, 0, state)) {
            for (int i = 0; i < 5; i++) {
                h.process(impression("fresh-" + i, "ad", T0 + HOUR));
            }
            assertThat(h.counter(DedupMetrics.UNIQUE) + h.counter(DedupMetrics.DUPLICATES)).as("decided, none failed").isEqualTo(5);
            assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).as("sent to the overflow band").isEqualTo(h.counter(DedupMetrics.UNIQUE))
                    .isPositive();
        }
    }
}
