package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.StateFormat;
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

    @Test
    void theReportEndsWithBothStateFormatsSideBySideAtTheirForecasts() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(5_120_000).shards(128).fpp(0.0001).build();
        CapacityReport report = new CapacityReport(plan);
        java.util.List<StateFormatForecast> forecasts = report.formatForecasts();

        assertThat(forecasts).extracting(StateFormatForecast::format)
                .containsExactly(StateFormat.BLOOM, StateFormat.FINGERPRINTS, StateFormat.FINGERPRINTS);
        assertThat(forecasts.get(2).plan().fpp()).isEqualTo(StateFormatForecast.fingerprintFppAtBloomBytes(plan));
        String table = report.formatsSideBySide();
        assertThat(report.render()).endsWith(table);
        assertThat(table).contains("--state-format bloom --fpp 1.0E-4 (this plan)\n")
                .contains("--state-format fingerprints --fpp 1.0E-4\n")
                .contains(String.format(java.util.Locale.ROOT, "--state-format fingerprints --fpp %.3g (the Bloom format's bytes at plan)\n",
                        forecasts.get(2).plan().fpp()));
        String[] lines = table.split("\n");
        for (int f = 0; f < 3; f++) {
            String bytes = lines[3 + 3 * f];
            String dropped = lines[4 + 3 * f];
            for (double fill : StateFormatForecast.REPORTED_FILLS) {
                assertThat(bytes).contains(String.format(java.util.Locale.ROOT, " %.2f", forecasts.get(f).bytesPerImpression(fill)));
                assertThat(dropped).contains(String.format(java.util.Locale.ROOT, " %,.0f", forecasts.get(f).droppedPerDay(fill)));
            }
        }
    }
}
