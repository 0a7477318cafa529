package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import org.apache.flink.util.TimeUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** test-data generate's time options default to the job's, from {@link TimeBuckets}. */
class JobTimeDefaultsTest {

    @Test
    void generateDefaultsToTheJobsRetentionBucketSizeAndAllowedLateness() {
        CommandLine commandLine = new CommandLine(new GenerateCommand()).registerConverter(Duration.class, TimeUtils::parseDuration);
        commandLine.parseArgs("--truth", "truth.csv", "--output", "impressions.jsonl");
        GenerateCommand generate = commandLine.getCommand();

        assertThat(generate.retention).isEqualTo(TimeBuckets.DEFAULT_RETENTION);
        assertThat(generate.bucketSize).isEqualTo(TimeBuckets.DEFAULT_BUCKET_SIZE);
        assertThat(generate.allowedLateness).isEqualTo(TimeBuckets.DEFAULT_ALLOWED_LATENESS);
    }

    @ParameterizedTest
    @CsvSource({"P2D, 2d", "P1D, 1d", "PT6H, 6h", "PT30M, 30min", "PT90S, 90s"})
    void aDefaultIsShownAsTheCommandLineWritesIt(Duration duration, String text) {
        assertThat(JobTimeDefaults.commandLineText(duration)).isEqualTo(text);
        assertThat(TimeUtils.parseDuration(text)).isEqualTo(duration);
    }
}
