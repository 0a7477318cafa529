package io.impressiondedup.testdata.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.TestDataCommand;
import io.impressiondedup.testdata.TestDataHeaders;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.write.RecordEnvelope;

/**
 * The verifier catches each fault a dedup job could make, with a non-zero exit: a perfect job's
 * output is simulated from the ground truth, then one fault is planted. The stream is generated once for the class;
 * each test plants its fault in copies of the perfect output.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerifierTest {

    @TempDir
    static Path dir;

    private List<GeneratedRecord> records;
    private Path truth;
    /** The records a perfect job writes: the first of each identity group, and every dead letter with its reason. */
    private List<GeneratedRecord> perfectOutput;
    private List<GeneratedRecord> perfectDeadLetters;

    @BeforeAll
    void generate() throws IOException {
        GeneratorSettings settings = GeneratorSettings.builder().seed(3).count(20_000).start(Instant.parse("2026-11-18T00:00:00Z")).build();
        records = new ArrayList<>();
        truth = dir.resolve("truth.csv");
        try (GroundTruthWriter writer = new GroundTruthWriter(truth)) {
            ImpressionGenerator generator = new ImpressionGenerator(settings);
            while (generator.hasNext()) {
                GeneratedRecord r = generator.next();
                records.add(r);
                writer.write(r);
            }
        }
        perfectOutput = new ArrayList<>();
        perfectDeadLetters = new ArrayList<>();
        Set<Long> groupsSeen = new HashSet<>();
        for (GeneratedRecord r : records) {
            if (r.recordClass.isDeadLetter()) {
                perfectDeadLetters.add(r);
            } else if (groupsSeen.add(r.group)) {
                perfectOutput.add(r);
            }
        }
    }

    private int verify(List<GeneratedRecord> output, List<GeneratedRecord> deadLetters, Consumer<Map<Long, String>> reasonOverrides,
            String... bounds) throws IOException {
        return verify(truth, output, deadLetters, reasonOverrides, bounds);
    }

    private int verify(Path truth, List<GeneratedRecord> output, List<GeneratedRecord> deadLetters,
            Consumer<Map<Long, String>> reasonOverrides, String... bounds) throws IOException {
        Map<Long, String> reasons = new LinkedHashMap<>();
        deadLetters.forEach(r -> reasons.put(r.seq, r.expectedReason));
        reasonOverrides.accept(reasons);
        Path outputFile = dir.resolve("output.jsonl");
        Path dlqFile = dir.resolve("dlq.jsonl");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(outputFile))) {
            for (GeneratedRecord r : output) {
                RecordEnvelope.write(out, r.seq, r.key, null, r.value, r.valueIsJsonObject);
            }
        }
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dlqFile))) {
            for (GeneratedRecord r : deadLetters) {
                RecordEnvelope.write(out, r.seq, r.key, Map.of(TestDataHeaders.DEAD_LETTER_REASON, reasons.get(r.seq)), r.value,
                        r.valueIsJsonObject);
            }
        }
        List<String> args = new ArrayList<>(List.of("verify", "--truth", truth.toString(), "--output-file", outputFile.toString(),
                "--dlq-file", dlqFile.toString(), "--configured-fpp", "0.001", "--report", dir.resolve("report.json").toString()));
        args.addAll(List.of(bounds));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        int exit = TestDataCommand.run(args.toArray(new String[0]), new PrintStream(text, true, StandardCharsets.UTF_8), System.err);
        lastReport = text.toString(StandardCharsets.UTF_8);
        return exit;
    }

    private String lastReport;

    private GeneratedRecord first(RecordClass recordClass) {
        return records.stream().filter(r -> r.recordClass == recordClass).findFirst().orElseThrow();
    }

    @Test
    void aPerfectJobPassesEveryBound() throws IOException {
        assertThat(verify(perfectOutput, perfectDeadLetters, r -> { }, "--max-fp-rate", "0")).isZero();
        assertThat(lastReport).containsPattern("false negatives:\\s+0").contains("verdict: all bounds hold");
        assertThat(Files.readString(dir.resolve("report.json"))).contains("\"falseNegatives\" : 0").contains("\"input\" : 20000");
    }

    @Test
    void aDuplicateInTheOutputIsAFalseNegative() throws IOException {
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.add(first(RecordClass.DUPLICATE_WITHIN_RETENTION));

        assertThat(verify(output, perfectDeadLetters, r -> { })).isEqualTo(1);
        assertThat(lastReport).containsPattern("false negatives:\\s+1").contains("FAILED: false negatives 1 > 0");
    }

    @Test
    void aKeptCopyInsteadOfItsOriginalIsFine() throws IOException {
        GeneratedRecord copy = first(RecordClass.DUPLICATE_WITHIN_RETENTION);
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.removeIf(r -> r.seq == copy.group);
        output.add(copy);

        assertThat(verify(output, perfectDeadLetters, r -> { }, "--max-fp-rate", "0")).isZero();
    }

    @Test
    void aDeadLetterInNoTopicIsLost() throws IOException {
        List<GeneratedRecord> deadLetters = new ArrayList<>(perfectDeadLetters);
        deadLetters.remove(first(RecordClass.MALFORMED));

        assertThat(verify(perfectOutput, deadLetters, r -> { })).isEqualTo(1);
        assertThat(lastReport).containsPattern("lost:\\s+1").contains("FAILED: lost records 1 > 0");
    }

    @Test
    void aRecordWrittenTwiceIsCaught() throws IOException {
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.add(perfectOutput.get(100));

        assertThat(verify(output, perfectDeadLetters, r -> { })).isEqualTo(1);
        assertThat(lastReport).containsPattern("written twice:\\s+1").contains("records written twice 1 > 0");
    }

    @Test
    void aDeadLetterWithTheWrongReasonIsMisclassified() throws IOException {
        GeneratedRecord late = first(RecordClass.LATE);

        assertThat(verify(perfectOutput, perfectDeadLetters, reasons -> reasons.put(late.seq, "malformed"))).isEqualTo(1);
        assertThat(lastReport).contains("late -> malformed=1").contains("misclassified dead letters 1 > 0");
    }

    @Test
    void anImpressionDeadLetteredAsLateIsMisclassifiedNotAFalsePositive() throws IOException {
        GeneratedRecord unique = first(RecordClass.UNIQUE);
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.remove(unique);
        List<GeneratedRecord> deadLetters = new ArrayList<>(perfectDeadLetters);
        deadLetters.add(unique);

        assertThat(verify(output, deadLetters, reasons -> reasons.put(unique.seq, "late"), "--max-fp-rate", "0")).isEqualTo(1);
        assertThat(lastReport).contains("unique -> late=1").containsPattern("false positives:\\s+0");
    }

    @Test
    void aGenuineImpressionThatOnlyReachedTheDeadLetterTopicIsReportedByReason() throws IOException {
        GeneratedRecord unique = first(RecordClass.UNIQUE);
        GeneratedRecord beyond = first(RecordClass.DUPLICATE_BEYOND_RETENTION);
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.remove(unique);
        output.remove(beyond);
        List<GeneratedRecord> deadLetters = new ArrayList<>(perfectDeadLetters);
        deadLetters.add(unique);
        deadLetters.add(beyond);

        Consumer<Map<Long, String>> lateAndMalformed = reasons -> {
            reasons.put(unique.seq, "late");
            reasons.put(beyond.seq, "malformed");
        };
        assertThat(verify(output, deadLetters, lateAndMalformed)).isEqualTo(1);
        assertThat(lastReport)
                .containsPattern("genuine dead-lettered:\\s+2 \\(.*late 1, malformed 1, oversized 0, future-timestamp 0")
                .contains("genuine impressions dead-lettered 2 > 0")
                .containsPattern("false positives:\\s+0");
        assertThat(Files.readString(dir.resolve("report.json"))).contains("\"genuineDeadLettered\" : 2")
                .containsPattern("\"genuineDeadLetteredByReason\" : \\{\\s+\"late\" : 1,\\s+\"malformed\" : 1,");
        // The bound is the product's promise, 0; raising it leaves only the misclassified dead letters to fail.
        assertThat(verify(output, deadLetters, lateAndMalformed, "--max-genuine-dead-lettered", "2",
                "--max-misclassified", "2")).isZero();
    }

    @Test
    void aGroupWithOneRecordInTheOutputIsNotDeadLetteredEvenIfAnotherCopyWas() throws IOException {
        GeneratedRecord copy = first(RecordClass.DUPLICATE_WITHIN_RETENTION);
        List<GeneratedRecord> deadLetters = new ArrayList<>(perfectDeadLetters);
        deadLetters.add(copy);

        assertThat(verify(perfectOutput, deadLetters, reasons -> reasons.put(copy.seq, "late"))).isEqualTo(1);
        assertThat(lastReport).containsPattern("genuine dead-lettered:\\s+0 ").contains("duplicate-within-retention -> late=1");
    }

    @Test
    void droppedCopiesAreFineAndCountedAsSuch() throws IOException {
        long copies = records.stream().filter(r -> r.recordClass == RecordClass.DUPLICATE_WITHIN_RETENTION).count();

        assertThat(verify(perfectOutput, perfectDeadLetters, r -> { })).isZero();
        assertThat(lastReport).containsPattern("dropped \\(in no topic\\):\\s+" + String.format(java.util.Locale.ROOT, "%,d", copies)
                + " \\(of which " + String.format(java.util.Locale.ROOT, "%,d", copies) + " duplicates");
    }

    @Test
    void aDelayedClientsStreamPassesForAPerfectJobAndADelayedImpressionJudgedLateIsCaught() throws IOException {
        GeneratorSettings settings = GeneratorSettings.builder().seed(5).count(20_000).start(Instant.parse("2026-11-18T00:00:00Z"))
                .delayedShare(0.05).build();
        List<GeneratedRecord> records = new ArrayList<>();
        Path truth = dir.resolve("delayed-clients-truth.csv");
        try (GroundTruthWriter writer = new GroundTruthWriter(truth)) {
            ImpressionGenerator generator = new ImpressionGenerator(settings);
            while (generator.hasNext()) {
                GeneratedRecord r = generator.next();
                records.add(r);
                writer.write(r);
            }
        }
        List<GeneratedRecord> output = new ArrayList<>();
        List<GeneratedRecord> deadLetters = new ArrayList<>();
        Set<Long> groupsSeen = new HashSet<>();
        GeneratedRecord delayed = null;
        long maxEventTime = Long.MIN_VALUE;
        for (GeneratedRecord r : records) {
            if (r.recordClass.isDeadLetter()) {
                deadLetters.add(r);
                continue;
            }
            if (groupsSeen.add(r.group)) {
                output.add(r);
            }
            if (delayed == null && r.recordClass == RecordClass.UNIQUE && maxEventTime - r.eventTime > 3_600_000) {
                delayed = r;
            }
            maxEventTime = Math.max(maxEventTime, r.eventTime);
        }
        assertThat(verify(truth, output, deadLetters, r -> { }, "--max-fp-rate", "0")).isZero();

        GeneratedRecord judgedLate = delayed;
        assertThat(judgedLate).isNotNull();
        output.remove(judgedLate);
        deadLetters.add(judgedLate);
        assertThat(verify(truth, output, deadLetters, reasons -> reasons.put(judgedLate.seq, "late"))).isEqualTo(1);
        assertThat(lastReport).containsPattern("genuine dead-lettered:\\s+1 \\(.*late 1,")
                .containsPattern("e\\.g\\. genuine-dead-lettered \\(group\\):\\s+seq \\[" + judgedLate.seq + "\\]");
    }

    @Test
    void aMissingUniqueImpressionIsAFalsePositiveJudgedAgainstTheRateBound() throws IOException {
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.remove(first(RecordClass.UNIQUE));

        assertThat(verify(output, perfectDeadLetters, r -> { }, "--max-fp-rate", "0.001")).isZero();
        assertThat(lastReport).containsPattern("false positives:\\s+1 of");
        assertThat(verify(output, perfectDeadLetters, r -> { }, "--max-fp-rate", "0.00001")).isEqualTo(1);
        assertThat(lastReport).contains("false-positive rate");
    }

    @Test
    void aDeadLetterThatReachedTheOutputIsCaught() throws IOException {
        GeneratedRecord future = first(RecordClass.FUTURE);
        List<GeneratedRecord> output = new ArrayList<>(perfectOutput);
        output.add(future);
        List<GeneratedRecord> deadLetters = new ArrayList<>(perfectDeadLetters);
        deadLetters.remove(future);

        assertThat(verify(output, deadLetters, r -> { })).isEqualTo(1);
        assertThat(lastReport).containsPattern("dead letters in output:\\s+1");
    }

    @Test
    void aBadCommandLineExitsWithTwoNamingTheOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = TestDataCommand.run(new String[] {"verify", "--output-file", "x"}, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--truth");
    }
}
