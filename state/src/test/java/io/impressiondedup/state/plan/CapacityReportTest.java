package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CapacityReportTest {

    @Test
    void theReportedFiguresFollowFromThePlan() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(2_000_000_000L).build();
        CapacityReport report = new CapacityReport(plan);

        assertThat(report.totalBytes()).isEqualTo(report.bytesPerShardBucket() * plan.liveBuckets() * 128);
        assertThat(report.truncationCollisionsPerBucket()).isEqualTo(4e18 / Math.pow(2, 65));
        assertThat(report.bitsPerImpression()).isBetween(20.0, 24.0);
        assertThat(report.exactDedupBytes()).isEqualTo(2_000_000_000L * 2 * CapacityReport.EXACT_DEDUP_BYTES_PER_KEY_ROCKSDB);
    }

    @Test
    void theAllowedLatenessCostsOneMoreLiveDailyFilterPerDay() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000_000L).build();
        assertThat(plan.liveBuckets()).isEqualTo(5);
        assertThat(DedupPlan.liveBuckets(plan.timeBuckets().withAllowedLateness(java.time.Duration.ZERO))).isEqualTo(4);
        assertThat(DedupPlan.liveBuckets(plan.timeBuckets().withAllowedLateness(java.time.Duration.ofDays(3)))).isEqualTo(7);
        assertThat(new CapacityReport(plan).render()).contains("Allowed lateness:              1 d: costs 1 more live bucket(s)");
    }

    @Test
    void theReportPrintsTheShardStateCapAndHowFarOverPlanItLetsTrafficKeepTheFpp() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(2_000_000_000L).build();
        CapacityReport report = new CapacityReport(plan);

        assertThat(report.shardStateCapBytes()).isEqualTo(8 * report.bytesPerShard());
        // Layers 1, 2, 3 of a bucket take 2.2, 4.8 and 10.5 first layers; the growth allowance is 35 of them.
        assertThat(report.overPlanWithinCap(1)).isEqualTo(15);
        assertThat(report.overPlanWithinCap(4)).isEqualTo(7);
        assertThat(report.overPlanWithinCap(5)).isEqualTo(3);
        assertThat(report.render()).contains("Shard state cap:               1.60 GiB per shard (--shard-state-cap 8 x the planned 205.38 MiB):"
                + " a bucket up to 15x over plan, or the 4 buckets held most of the day each up to 7x, keep the FPP");
        assertThat(new CapacityReport(DedupPlan.builder().capacityPerBucket(2_000_000_000L).shardStateCap(1).build()).overPlanWithinCap(1))
                .as("no room for growth").isEqualTo(1);
    }
}
