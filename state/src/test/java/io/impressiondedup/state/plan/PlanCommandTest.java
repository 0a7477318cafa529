package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PlanCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return PlanCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void printsSizingMemoryCheckpointCollisionsAndTheExactDedupComparison() {
        assertThat(run("--daily-volume", "2000000000", "--fpp", "0.001", "--retention", "2d", "--shards", "128")).isZero();

        assertThat(out())
                .contains("2,000,000,000 unique impressions per 1 d bucket")
                .contains("Buckets checked per record:    5")
                .contains("k = ")
                .contains("Bits per impression:")
                .contains("State per shard:")
                .contains("State in total:")
                .contains("Full checkpoint:")
                .contains("MD5 truncation collisions:")
                .contains("(n^2 / 2^65)")
                .contains("Exact dedup instead:");
        assertThat(err()).isEmpty();
    }

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
    void helpListsEveryOptionWithItsDefault() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("--daily-volume  (required)").contains("--fpp  (default: 0.001)").contains("--retention  (default: 2 d)");
    }

    @Test
    void aMissingRequiredOptionIsNamed() {
        assertThat(run("--fpp", "0.01")).isEqualTo(2);
        assertThat(err()).contains("--daily-volume");
    }

    @Test
    void anOutOfRangeValueNamesTheOptionAndTheAllowedValues() {
        assertThat(run("--daily-volume", "1000", "--key-bits", "16")).isEqualTo(2);
        assertThat(err()).contains("'16'").contains("--key-bits").contains("[32, 128]");
    }

    @Test
    void aValueOfTheWrongTypeNamesTheOption() {
        assertThat(run("--daily-volume", "lots")).isEqualTo(2);
        assertThat(err()).contains("--daily-volume").contains("lots");
    }

    @Test
    void anUnknownOptionIsNamedWithTheKnownOnes() {
        assertThat(run("--daily-volume", "1000", "--fp", "0.01")).isEqualTo(2);
        assertThat(err()).contains("Unknown option --fp").contains("--fpp");
    }
}
