package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.impressiondedup.state.bloom.BloomSizing;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import org.junit.jupiter.api.Test;

class DedupPlanTest {

    private final DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000_000_000L).fpp(0.001).shards(128).build();

    @Test
    void eachBucketGetsItsShareOfTheEndToEndFpp() {
        assertThat(plan.bucketsChecked()).isEqualTo(5);
        assertThat(plan.bucketFpp()).isCloseTo(0.0002, within(1e-12));
        assertThat(plan.bucketFpp() * plan.bucketsChecked()).isCloseTo(plan.fpp(), within(1e-12));
    }

    @Test
    void eachShardsFilterIsSizedForItsShareOfTheCapacityPlusFourStandardDeviations() {
        DedupPlan odd = DedupPlan.builder().capacityPerBucket(1000).shards(3).build();
        assertThat(odd.expectedPerShard()).isEqualTo(334);
        // sd = sqrt(1000 * 1/3 * 2/3) = 14.9; 4 sd = 59.6
        assertThat(odd.capacityPerShard()).isEqualTo(334 + 60);
        DedupPlan single = DedupPlan.builder().capacityPerBucket(1000).shards(1).build();
        assertThat(single.capacityPerShard()).as("one shard receives exactly the plan").isEqualTo(1000);
    }

    @Test
    void noShardOutgrowsItsFilterOnADayThatIsExactlyOnPlan() {
        DedupPlan onPlan = DedupPlan.builder().capacityPerBucket(2_000_000).shards(128).build();
        long[] perShard = new long[128];
        java.util.SplittableRandom digests = new java.util.SplittableRandom(42);
        for (int i = 0; i < 2_000_000; i++) {
            perShard[(int) Long.remainderUnsigned(digests.nextLong(), 128)]++;
        }
        long busiest = java.util.Arrays.stream(perShard).max().orElseThrow();
        assertThat(busiest).as("the busiest shard").isGreaterThan(onPlan.expectedPerShard()).isLessThanOrEqualTo(onPlan.capacityPerShard());
    }

    @Test
    void newBucketFiltersFollowThePlan() {
        ScalableBloomFilter filter = plan.newBucketFilter();
        assertThat(filter.initialCapacity()).isEqualTo(plan.capacityPerShard());
        assertThat(filter.targetFpp()).isEqualTo(plan.bucketFpp());
        assertThat(filter.layers().get(0).geometry()).isEqualTo(plan.firstLayerGeometry());
        assertThat(filter.blocksPerPage()).isEqualTo(DedupPlan.DEFAULT_PAGE_BYTES / 64);
    }

    @Test
    void theFirstLayerMeetsItsFppAtPlannedCapacity() {
        var geometry = plan.firstLayerGeometry();
        assertThat(BloomSizing.blockedFpp(geometry.numBlocks(), plan.capacityPerShard(), geometry.probes()))
                .isLessThanOrEqualTo(plan.bucketFpp() / 2);
    }

    @Test
    void invalidPlansFailNamingTheValue() {
        assertThatThrownBy(() -> DedupPlan.builder().build()).hasMessageContaining("capacity");
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(10).fpp(0.7).build()).hasMessageContaining("0.7");
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(10).pageBytes(100).build()).hasMessageContaining("100");
    }

    @Test
    void aShardFilterTooLargeToAddressIsRejectedAtBuildTime() {
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(100_000_000_000L).shards(1).pageBytes(64).build())
                .hasMessageContaining("more shards");
    }

    @Test
    void theShardStateCapIsAMultipleOfTheShardsPlannedStateAndLeavesTheRestForGrowth() {
        DedupPlan small = DedupPlan.builder().capacityPerBucket(128_000).shards(128).build();
        long firstLayer = small.firstLayerGeometry().bytes();
        assertThat(small.plannedBytesPerShard()).isEqualTo(firstLayer * small.liveBuckets());
        assertThat(small.shardStateCap()).isEqualTo(DedupPlan.DEFAULT_SHARD_STATE_CAP);
        assertThat(small.shardStateCapBytes()).isEqualTo(8 * small.plannedBytesPerShard());
        assertThat(small.shardGrowthAllowanceBytes()).isEqualTo(7 * small.plannedBytesPerShard());

        DedupPlan capped = DedupPlan.builder().capacityPerBucket(128_000).shards(128).shardStateCap(0.5).build();
        assertThat(capped.shardGrowthAllowanceBytes()).as("below 1, no filter ever grows").isNegative();
        assertThat(capped).isNotEqualTo(small);
    }

    @Test
    void aShardStateCapOfZeroOrLessIsRejectedQuotingIt() {
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(1000).shardStateCap(0).build()).hasMessageContaining("0.0");
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(1000).shardStateCap(-2).build()).hasMessageContaining("-2.0");
        assertThatThrownBy(() -> DedupPlan.builder().capacityPerBucket(1000).shardStateCap(Double.NaN).build()).hasMessageContaining("NaN");
    }
}
