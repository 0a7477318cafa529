package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.impressiondedup.testdata.verify.GroundTruth;

/** The committed samples are exactly what the documented command generates, and pass verification of a perfect job. */
class CommittedSampleTest {

    /** The command in test-data/README.md that produced samples/. */
    static final String[] SAMPLE_COMMAND = {
        "generate", "--count", "3000", "--seed", "42", "--start", "2026-11-18T00:00:00Z", "--span", "4d",
        "--malformed-share", "0.01", "--late-share", "0.005", "--future-share", "0.003"
    };

    static final Path SAMPLES = Path.of("samples");

    @Test
    void regeneratingTheSampleGivesTheCommittedFilesByteForByte(@TempDir Path dir) throws Exception {
        String[] args = new String[SAMPLE_COMMAND.length + 4];
        System.arraycopy(SAMPLE_COMMAND, 0, args, 0, SAMPLE_COMMAND.length);
        args[SAMPLE_COMMAND.length] = "--output";
        args[SAMPLE_COMMAND.length + 1] = dir.resolve("impressions.jsonl").toString();
        args[SAMPLE_COMMAND.length + 2] = "--truth";
        args[SAMPLE_COMMAND.length + 3] = dir.resolve("truth.csv").toString();
        ByteArrayOutputStream quiet = new ByteArrayOutputStream();
        PrintStream sink = new PrintStream(quiet, true, StandardCharsets.UTF_8);

        assertThat(TestDataCommand.run(args, sink, sink)).isZero();

        assertThat(dir.resolve("impressions.jsonl")).hasSameBinaryContentAs(SAMPLES.resolve("impressions.jsonl"));
        assertThat(dir.resolve("truth.csv")).hasSameBinaryContentAs(SAMPLES.resolve("truth.csv"));
    }

    @Test
    void theSampleHasEveryClassAReaderMightLookFor() throws Exception {
        GroundTruth truth = GroundTruth.read(SAMPLES.resolve("truth.csv"));
        java.util.Set<RecordClass> classes = java.util.EnumSet.noneOf(RecordClass.class);
        for (int seq = 0; seq < truth.size(); seq++) {
            classes.add(truth.recordClass(seq));
        }
        assertThat(truth.size()).isEqualTo(3000);
        assertThat(classes).containsExactlyInAnyOrder(RecordClass.values());
        assertThat(Files.lines(SAMPLES.resolve("impressions.jsonl")).count()).isEqualTo(3000);
    }
}
