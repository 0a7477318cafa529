package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.DedupJobConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

    /** The README's example. */
    @Test
    void printsSizingMemoryCheckpointCollisionsAndTheExactDedupComparison() {
        assertThat(run("--capacity", "2000000000", "--fpp", "0.001")).isZero();

        assertThat(out())
                .contains("2,000,000,000 unique impressions per 1 d bucket")
                .contains("Buckets checked per record:    5")
                .contains("k = ")
                .contains("Bits per impression:")
                .contains("Allowed lateness:              1 d")
                .contains("State per shard:")
                .contains("State in total:")
                .contains("Full checkpoint:")
                .contains("MD5 truncation collisions:")
                .contains("(n^2 / 2^65)")
                .contains("Exact dedup instead:");
        assertThat(err()).isEmpty();
    }

    /** Both state formats side by side, the Bloom format's bytes bought by fingerprints at 5e-6. */
    @Test
    void printsBothStateFormatsSideBySideBelowAtAndOverPlan() {
        assertThat(run("--capacity", "2000000000", "--fpp", "0.001", "--state-format", "fingerprints")).isZero();

        assertThat(out())
                .contains("  traffic of the day against --capacity                         50%          80%         100%         200%\n")
                .contains("  --state-format bloom --fpp 0.001\n"
                        + "    state per live impression, bytes                           5.51         3.45         2.76         4.41\n"
                        + "    genuine impressions dropped per day                       1,134       64,297      420,677    1,025,295\n")
                .contains("  --state-format fingerprints --fpp 0.001 (this plan)\n"
                        + "    state per live impression, bytes                           1.92         1.84         1.79         2.05\n"
                        + "    genuine impressions dropped per day                     224,773      575,420      899,093    2,069,626\n")
                .contains("  --state-format fingerprints --fpp 4.99e-06 (the Bloom format's bytes at plan)\n"
                        + "    state per live impression, bytes                           2.88         2.79         2.76         3.01\n"
                        + "    genuine impressions dropped per day                       1,121        2,869        4,482       10,318\n");
    }

    /** The same arguments give the plan command and the job the same plan: the defaults and three variants. */
    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "--fpp 0.0001 --retention 36h --allowed-lateness 0s --bucket-size 6h",
        "--state-backend hashmap --shards 64 --key-bits 96 --zone Europe/Paris",
        "--max-parallelism 256 --page-bytes 1024 --allowed-lateness 2d --retention 3d",
    })
    void thePlanCommandAndTheJobBuildEqualPlansFromTheSameArguments(String variant) {
        List<String> planArgs = new ArrayList<>(List.of("--capacity", "50000000"));
        if (!variant.isEmpty()) {
            planArgs.addAll(List.of(variant.split(" ")));
        }
        List<String> jobArgs = new ArrayList<>(List.of("--bootstrap-servers", "localhost:9092", "--input-topic", "in",
                "--output-topic", "out", "--dlq-topic", "dlq"));
        jobArgs.addAll(planArgs);

        assertThat(PlanCommand.plan(planArgs.toArray(new String[0])))
                .isEqualTo(DedupJobConfig.parse(jobArgs.toArray(new String[0])).dedupSettings().plan());
    }

    @Test
    void thePlanPrintsThePageCacheOfItsBackend() {
        assertThat(run("--capacity", "2000000000")).isZero();
        assertThat(out()).contains("Page-group cache per subtask: 3/4 of each slot's task heap (--page-cache-bytes fixes it); with 4 slots"
                + " on Flink's default TaskManager (384 MiB of task heap): 72 MiB = 52,139 groups of 1,448 B (5 live buckets x 256 B pages)");
        assertThat(run("--capacity", "2000000000", "--page-cache-bytes", "128mb")).isZero();
        assertThat(out()).contains("Page-group cache per subtask: 128 MiB = 92,691 groups of 1,448 B");
        assertThat(run("--capacity", "2000000000", "--state-backend", "hashmap")).isZero();
        assertThat(out()).contains("Page-group cache per subtask: off (--page-cache-bytes 0)");
    }

    @Test
    void helpListsEveryPlanOptionWithItsDefault() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("--capacity  (required)").contains("--fpp  (default: 0.001)").contains("--retention  (default: 2 d)")
                .contains("--allowed-lateness  (default: 1 d)").doesNotContain("--input-topic");
    }

    @Test
    void aMissingRequiredOptionIsNamed() {
        assertThat(run("--fpp", "0.01")).isEqualTo(2);
        assertThat(err()).contains("--capacity");
    }

    @Test
    void anOutOfRangeValueNamesTheOptionAndTheAllowedValues() {
        assertThat(run("--capacity", "1000", "--key-bits", "16")).isEqualTo(2);
        assertThat(err()).contains("'16'").contains("--key-bits").contains("[32, 128]");
    }

    @Test
    void aValueOfTheWrongTypeNamesTheOption() {
        assertThat(run("--capacity", "lots")).isEqualTo(2);
        assertThat(err()).contains("--capacity").contains("lots");
    }

    @Test
    void anUnknownOptionIsNamedWithTheKnownOnes() {
        assertThat(run("--capacity", "1000", "--fp", "0.01")).isEqualTo(2);
        assertThat(err()).contains("Unknown option --fp").contains("--fpp");
    }

    @Test
    void jobOptionsThatDoNotShapeThePlanAreRejected() {
        assertThat(run("--capacity", "1000", "--input-topic", "x")).isEqualTo(2);
        assertThat(err()).contains("Unknown option --input-topic");
    }
}
