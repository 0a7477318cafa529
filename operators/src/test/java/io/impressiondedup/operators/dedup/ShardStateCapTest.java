package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The shard state cap ({@link DedupPlan#shardStateCap()}): one shard flooded far past its plan keeps
 * its size and pays in FPP, every other shard keeps growing as it needs and keeps its FPP.
 *
 * <p>The plan is small so that the cap is too: 12,800 impressions a day over 128 shards, about 140 per
 * shard and bucket, a first layer of a few hundred bytes; a million ads of one request are 7,000 times
 * that shard's plan.
 */
@Isolated // reads the operator's warnings, whichever test logs them
class ShardStateCapTest {

    private static final long BUCKET = T0 / DAY;

    static DedupSettings settings(double shardStateCap) {
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(12_800).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                        .shardStateCap(shardStateCap).build())
                .build();
    }

    @Test
    void oneRequestIdWithAMillionAdIdsStaysUnderTheShardCapWhileOtherShardsKeepTheirFpp() throws Exception {
        DedupSettings settings = settings(DedupPlan.DEFAULT_SHARD_STATE_CAP);
        DedupPlan plan = settings.plan();
        try (CapturedWarnings warnings = new CapturedWarnings(DedupOperator.class);
                DedupHarness h = DedupHarness.open(settings, Backend.HASHMAP)) {
            int attacked = flood(h, 1_000_000);

            long capped = h.counter(DedupMetrics.CAPPED_INSERTIONS);
            assertThat(capped).as("unique ads inserted past the cap").isGreaterThan(1000);
            h.snapshot(1); // flushes the directories, refreshes the gauges
            ScalableBloomFilter flooded = (ScalableBloomFilter) h.storedDirectory(attacked).get(BUCKET);
            assertThat(flooded.bytes()).isLessThanOrEqualTo(plan.shardStateCapBytes());
            assertThat(h.pageBytes(attacked)).isLessThanOrEqualTo(plan.shardStateCapBytes());
            assertThat(flooded.estimatedFpp()).as("the flooded shard pays in FPP").isGreaterThan(0.5);
            assertThat((Double) h.gauge(DedupMetrics.ESTIMATED_FPP)).isEqualTo(flooded.estimatedFpp());
            // One warning for the shard and bucket, however many capped inserts.
            assertThat(warnings.containing("shard state cap")).singleElement().asString()
                    .contains("of shard " + h.keySelector.shardKeys().shardOf(attacked))
                    .contains(java.time.Instant.ofEpochMilli(T0).toString());

            // Every other shard runs 3x over plan: their filters grow, and keep the FPP.
            long perShard = 3 * plan.capacityPerShard();
            long duplicatesBefore = h.counter(DedupMetrics.DUPLICATES);
            long legitimate = 0;
            for (int r = 0; legitimate < perShard * (plan.shards() - 1); r++) {
                var next = impression("legit-" + r, "ad", T0 + 2 * HOUR + r % 1000);
                if (h.shardKeyOf(next) != attacked) {
                    h.process(next);
                    legitimate++;
                }
            }
            long falsePositives = h.counter(DedupMetrics.DUPLICATES) - duplicatesBefore; // every one of them was unique
            double expected = plan.bucketFpp() * legitimate;
            assertThat((double) falsePositives).as("false positives among %s unique impressions", legitimate)
                    .isLessThanOrEqualTo(expected + 3 * Math.sqrt(expected));
            assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).isEqualTo(capped);
            h.snapshot(2);
            Set<Integer> grown = new HashSet<>();
            for (int shard = 0; shard < plan.shards(); shard++) {
                int key = h.keySelector.shardKeys().keyOf(shard);
                if (key == attacked) {
                    continue;
                }
                BucketFilters directory = h.storedDirectory(key);
                ScalableBloomFilter filter = (ScalableBloomFilter) directory.get(BUCKET);
                assertThat(filter.estimatedFpp()).as("shard %s", shard).isLessThanOrEqualTo(plan.bucketFpp());
                if (filter.layerCount() > 1) {
                    grown.add(shard);
                }
            }
            assertThat(grown).hasSizeGreaterThan(plan.shards() / 2);
        }
    }

    @Test
    void withoutTheCapTheSameFloodGrowsTheShardFarPastIt() throws Exception {
        long cap = settings(DedupPlan.DEFAULT_SHARD_STATE_CAP).plan().shardStateCapBytes();
        try (DedupHarness h = DedupHarness.open(settings(1e9), Backend.HASHMAP)) {
            int attacked = flood(h, 200_000);
            h.snapshot(1);
            assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).isZero();
            assertThat(h.storedDirectory(attacked).get(BUCKET).estimatedFpp()).isLessThan(h.settings.plan().bucketFpp());
            assertThat(h.pageBytes(attacked)).as("a fifth of the flood, uncapped").isGreaterThan(20 * cap);
        }
    }

    /** {@code ads} impressions of one request, each with another ad id, in one bucket; returns its shard key. */
    private static int flood(DedupHarness h, int ads) throws Exception {
        for (int i = 0; i < ads; i++) {
            h.process(impression("attacker", "ad-" + i, T0 + HOUR + i % 1000));
            if (i % 50_000 == 0) {
                h.harness.getOutput().clear(); // the emitted records are not looked at: keep the heap small
            }
        }
        return h.shardKeyOf(impression("attacker", "ad-0", T0));
    }
}
