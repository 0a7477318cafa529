package io.impressiondedup.testdata;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.KafkaCatchUp;
import io.impressiondedup.testdata.verify.ObservedRecords;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import io.impressiondedup.testdata.write.RecordEnvelope;

/** {@code test-data verify}: the job's output and dead letters, from topics or files, against the ground truth and the bounds given. */
@Command(name = "verify", footerHeading = "%nPassed through:%n",
        description = "Compares the job's output and dead-letter topics (or files) with the ground truth; exits 1 if a bound is"
                + " broken.",
        footer = "  --kafka.<property> <value>   Passed to the Kafka consumer, e.g. --kafka.security.protocol SASL_SSL")
final class VerifyCommand extends TestDataSubcommand {

    @Option(names = "--truth", required = true, description = "Ground-truth CSV written by generate (required).")
    Path truth;

    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(names = "--output-topic", description = "The job's output topic (read with isolation.level=read_committed).")
    String outputTopic;

    @Option(names = "--dlq-topic", description = "The job's dead-letter topic.")
    String dlqTopic;

    @Option(names = "--output-file", description = "Instead of topics: the output as a JSONL envelope file.")
    Path outputFile;

    @Option(names = "--dlq-file",
            description = "Instead of topics: the dead letters as a JSONL envelope file (headers with dedup.reason).")
    Path dlqFile;

    @Option(names = "--configured-fpp", description = "The FPP the job ran with, shown next to the measured rate.")
    Double configuredFpp;

    @Option(names = "--max-fp-rate", description = "Fail (exit 1) if the false-positive rate exceeds this.")
    Double maxFpRate;

    @Option(names = "--max-false-negatives", defaultValue = "0",
            description = "Fail if more duplicates than this reached the output.")
    long maxFalseNegatives;

    @Option(names = "--max-lost", defaultValue = "0",
            description = "Fail if more records than this are in no topic though they had to be dead-lettered.")
    long maxLost;

    @Option(names = "--max-written-twice", defaultValue = "0", description = "Fail if more records than this appear twice.")
    long maxWrittenTwice;

    @Option(names = "--max-misclassified", defaultValue = "0",
            description = "Fail if more dead letters than this carry the wrong reason, or more dead-letter records than this"
                    + " reached the output.")
    long maxMisclassified;

    @Option(names = "--max-genuine-dead-lettered", defaultValue = "0",
            description = "Fail if more genuine impressions than this (identity groups with no record in the output) reached"
                    + " only the dead-letter topic, e.g. an in-time impression dead-lettered as late.")
    long maxGenuineDeadLettered;

    @Option(names = "--report", description = "Also write the report as JSON to this file.")
    Path report;

    @Option(names = "--await-group",
            description = "Before verifying a running job, wait until this consumer group (the job's --group-id) has"
                    + " committed the whole --input-topic and no transaction is open on the output and dead-letter topics.")
    String awaitGroup;

    @Option(names = "--input-topic", description = "The job's input topic, for --await-group.")
    String inputTopic;

    @Option(names = "--await-timeout", defaultValue = "5min", description = "How long --await-group waits before failing.")
    Duration awaitTimeout;

    @Override
    public Integer call() throws IOException {
        Map<String, String> kafkaProperties = kafkaProperties();
        GroundTruth groundTruth = GroundTruth.read(truth);
        VerificationReport verification;
        if (outputFile != null || dlqFile != null) {
            ObservedRecords observed = new ObservedRecords(groundTruth.size());
            readEnvelopes(required(outputFile, "--output-file"), e -> observed.output(seqBytes(e)));
            readEnvelopes(required(dlqFile, "--dlq-file"),
                    e -> observed.deadLetter(seqBytes(e), headerBytes(e, TestDataHeaders.DEAD_LETTER_REASON)));
            verification = Verifier.verify(groundTruth, observed);
        } else {
            String servers = required(bootstrapServers, "--bootstrap-servers");
            String output = required(outputTopic, "--output-topic");
            String dlq = required(dlqTopic, "--dlq-topic");
            if (awaitGroup != null) {
                String input = required(inputTopic, "--input-topic");
                try (KafkaCatchUp catchUp = new KafkaCatchUp(servers, kafkaProperties)) {
                    catchUp.await(awaitGroup, input, List.of(output, dlq), awaitTimeout);
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Waiting for group " + awaitGroup + " to catch up failed: " + e.getMessage(), e);
                }
            }
            verification = Verifier.verifyTopics(groundTruth, servers, output, dlq, kafkaProperties);
        }
        double fpp = configuredFpp == null ? Double.NaN : configuredFpp;
        parent.out().print(verification.toText(fpp));
        if (report != null) {
            Files.writeString(report, verification.toJson(fpp), StandardCharsets.UTF_8);
        }
        List<String> broken = brokenBounds(verification);
        if (broken.isEmpty()) {
            parent.out().println("verdict: all bounds hold");
            return 0;
        }
        parent.out().println("verdict: FAILED: " + String.join("; ", broken));
        return 1;
    }

    List<String> brokenBounds(VerificationReport report) {
        List<String> broken = new ArrayList<>();
        if (maxFpRate != null && report.falsePositiveRate() > maxFpRate) {
            broken.add("false-positive rate " + report.falsePositiveRate() + " > " + maxFpRate);
        }
        check(broken, "false negatives", report.falseNegatives(), maxFalseNegatives);
        check(broken, "lost records", report.lost(), maxLost);
        check(broken, "records written twice", report.writtenTwice(), maxWrittenTwice);
        check(broken, "misclassified dead letters", report.misclassifiedDeadLetters(), maxMisclassified);
        check(broken, "dead-letter records in the output", report.deadLettersInOutput(), maxMisclassified);
        check(broken, "genuine impressions dead-lettered", report.genuineDeadLettered(), maxGenuineDeadLettered);
        check(broken, "unidentified records", report.unidentified(), 0);
        return broken;
    }

    private static void check(List<String> broken, String what, long value, long max) {
        if (value > max) {
            broken.add(what + " " + value + " > " + max);
        }
    }

    private static byte[] seqBytes(RecordEnvelope envelope) {
        String seq = envelope.headers.get(TestDataHeaders.SEQ);
        return (seq != null ? seq : Long.toString(envelope.seq)).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] headerBytes(RecordEnvelope envelope, String name) {
        String value = envelope.headers.get(name);
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }

    private interface EnvelopeConsumer {
        void accept(RecordEnvelope envelope);
    }

    private static void readEnvelopes(Path file, EnvelopeConsumer consumer) throws IOException {
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (!line.isBlank()) {
                    consumer.accept(RecordEnvelope.parse(line));
                }
            }
        }
    }
}
