package io.impressiondedup.testdata;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code test-data generate ...} and {@code test-data verify ...}: the generator and the
 * ground-truth verifier on the command line (picocli). {@code --help} after a command lists its
 * options with their defaults. Durations are given like {@code 4d}, {@code 20h}, {@code 30s}
 * (Flink's {@link TimeUtils#parseDuration}), instants in ISO-8601.
 */
@Command(name = "test-data", scope = ScopeType.INHERIT, sortOptions = false, showDefaultValues = true, abbreviateSynopsis = true,
        usageHelpWidth = 100,
        subcommands = {TestDataCommand.Generate.class, TestDataCommand.Verify.class},
        description = "Deterministic impression generator and ground-truth verifier.")
public final class TestDataCommand {

    private static final String KAFKA_PREFIX = "--kafka.";

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "Print this help.")
    boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private TestDataCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; exit code 0 ok, 1 a verification bound broken, 2 a bad command line, 3 an I/O failure. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        PrintWriter outWriter = new PrintWriter(out, true);
        PrintWriter errWriter = new PrintWriter(err, true);
        CommandLine commandLine = new CommandLine(new TestDataCommand(out, err))
                .registerConverter(Duration.class, TimeUtils::parseDuration)
                .registerConverter(Instant.class, Instant::parse)
                .setOut(outWriter)
                .setErr(errWriter)
                .setParameterExceptionHandler((e, arguments) -> {
                    CommandSpec spec = e.getCommandLine().getCommandSpec();
                    errWriter.println(spec.qualifiedName() + ": " + e.getMessage());
                    UnmatchedArgumentException.printSuggestions(e, errWriter);
                    errWriter.println("Run '" + spec.qualifiedName() + " --help' for the options.");
                    return spec.exitCodeOnInvalidInput();
                })
                .setExecutionExceptionHandler((e, command, parseResult) -> {
                    errWriter.println(command.getCommandSpec().qualifiedName() + " failed: " + e);
                    return 3;
                });
        try {
            return commandLine.execute(args);
        } finally {
            outWriter.flush();
            errWriter.flush();
        }
    }

    /** {@code test-data generate}. */
    /** What both commands take besides their options: {@code --kafka.<property>} arguments, the spec, the tool. */
    abstract static class Subcommand implements Callable<Integer> {
        /** {@code --kafka.<property> value} pairs (picocli has no option prefixes); anything else is rejected. */
        @Unmatched
        List<String> unmatched = new ArrayList<>();

        @Spec
        CommandSpec spec;

        @ParentCommand
        TestDataCommand parent;
    }

    @Command(name = "generate", footerHeading = "%nPassed through:%n",
            description = "Generates impressions with duplicates, late, malformed and far-future records, to a JSONL file or a"
                    + " Kafka topic, and their ground truth.",
            footer = "  --kafka.<property> <value>   Passed to the Kafka producer, e.g. --kafka.security.protocol SASL_SSL")
    static final class Generate extends Subcommand {

        @Option(names = "--count", defaultValue = "1000000", description = "Records to generate.")
        long count;

        @Option(names = "--seed", defaultValue = "1",
                description = "Random seed: the same seed and options give the same records, byte for byte.")
        long seed;

        @Option(names = "--duplicate-share", defaultValue = "0.2",
                description = "Share of records that are copies of an earlier impression.")
        double duplicateShare;

        @Option(names = "--beyond-retention-share", defaultValue = "0.02",
                description = "Share of copies stamped beyond retention + one bucket (to pass as new).")
        double beyondRetentionShare;

        @Option(names = "--late-share", defaultValue = "0.002",
                description = "Share of late records (stamped 2 x retention + allowed lateness + 1 bucket + 6h behind the"
                        + " stream, or up to one bucket more).")
        double lateShare;

        @Option(names = "--malformed-share", defaultValue = "0.003",
                description = "Share of malformed records (invalid JSON, missing fields, garbage, oversized, ...).")
        double malformedShare;

        @Option(names = "--future-share", defaultValue = "0.001", description = "Share of records dated in the far future.")
        double futureShare;

        @Option(names = "--max-ads-per-request", defaultValue = "3",
                description = "Most ads one request shows (each a separate impression).")
        int maxAdsPerRequest;

        @Option(names = "--span", defaultValue = "4d", description = "Event time the stream covers.")
        Duration span;

        @Option(names = "--start",
                description = "Event time of the first record, ISO-8601 such as 2026-11-18T00:00:00Z (default: now minus the"
                        + " span, so the stream ends now).")
        Instant start;

        @Option(names = "--max-jitter", defaultValue = "30s",
                description = "Out-of-order jitter: records are stamped up to this far behind the stream clock.")
        Duration maxJitter;

        @Option(names = "--retention", defaultValue = "2d",
                description = "The job's retention (classes late and beyond-retention copies accordingly).")
        Duration retention;

        @Option(names = "--bucket-size", defaultValue = "1d",
                description = "The job's bucket size: at least 1min, dividing a day or whole days.")
        Duration bucketSize;

        @Option(names = "--allowed-lateness", defaultValue = "1d",
                description = "The job's allowed lateness (late records are stamped beyond it; delays stay inside it).")
        Duration allowedLateness;

        @Option(names = "--delayed-share", defaultValue = "0",
                description = "Share of requests from delayed clients (mobile, offline): their impressions keep their event time"
                        + " but are written --delay-min to --delay-max later into the stream; some copies are re-sent with the"
                        + " original timestamp.")
        double delayedShare;

        @Option(names = "--delay-min", defaultValue = "1h",
                description = "Shortest delay of a delayed client's impressions (uniform up to --delay-max).")
        Duration delayMin;

        @Option(names = "--delay-max", defaultValue = "20h",
                description = "Longest delay of a delayed client's impressions; at most --allowed-lateness minus 1h.")
        Duration delayMax;

        @Option(names = "--format", defaultValue = "json",
                description = "How values are written: json, or avro (binary, by the schema impression.avsc of this jar:"
                        + " test-data/src/main/resources/impression.avsc). The same seed gives the same records and ground truth in both.")
        String format;

        @Option(names = "--avro-wire-prefix", defaultValue = "none",
                description = "With --format avro: none, or confluent (each value begins with magic byte 0 and --avro-schema-id,"
                        + " the schema registry's wire format).")
        String avroWirePrefix;

        @Option(names = "--avro-schema-id", defaultValue = "1", description = "The schema id of --avro-wire-prefix confluent.")
        int avroSchemaId;

        @Option(names = "--output", description = "JSONL file to write records to (one envelope per line); or give --topic.")
        Path output;

        @Option(names = "--topic", description = "Kafka topic to produce records to (key = request id, header testdata.seq).")
        String topic;

        @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (with --topic).")
        String bootstrapServers;

        @Option(names = "--truth", required = true, description = "Ground-truth CSV to write (required).")
        Path truth;

        @Option(names = "--rate", defaultValue = "0", description = "Records per second to produce at; 0 for as fast as possible.")
        double rate;

        @Override
        public Integer call() throws IOException {
            Map<String, String> kafkaProperties = kafkaProperties(spec, unmatched);
            GeneratorSettings settings = settings();
            if (rate < 0) {
                throw new ParameterException(spec.commandLine(), "--rate must not be negative, but was " + rate);
            }
            if ((output == null) == (topic == null)) {
                throw new ParameterException(spec.commandLine(),
                        "Give exactly one of --output (a JSONL file) and --topic (with --bootstrap-servers)");
            }
            try (RecordDestination destination = output != null
                            ? new JsonlFileDestination(output)
                            : new KafkaTopicDestination(required(spec, bootstrapServers, "--bootstrap-servers"), topic, kafkaProperties);
                    GroundTruthWriter truthWriter = new GroundTruthWriter(truth)) {
                Map<RecordClass, Long> counts =
                        Generation.run(new ImpressionGenerator(settings), settings.count(), destination, truthWriter, rate, parent.err);
                parent.out.println("records by class: " + counts);
                parent.out.println("ground truth: " + truth);
            }
            return 0;
        }

        /** The options as generator settings; {@link GeneratorSettings.Builder#build()} validates them, naming the option. */
        GeneratorSettings settings() {
            GeneratorSettings.Builder builder = GeneratorSettings.builder()
                    .count(count)
                    .seed(seed)
                    .duplicateShare(duplicateShare)
                    .beyondRetentionShare(beyondRetentionShare)
                    .lateShare(lateShare)
                    .malformedShare(malformedShare)
                    .futureShare(futureShare)
                    .maxAdsPerRequest(maxAdsPerRequest)
                    .span(span)
                    .start(start)
                    .maxJitter(maxJitter)
                    .retention(retention)
                    .bucketSize(bucketSize)
                    .allowedLateness(allowedLateness)
                    .delayedShare(delayedShare)
                    .delayMin(delayMin)
                    .delayMax(delayMax);
            try {
                builder.format(switch (format) {
                    case "json" -> ValueFormat.JSON;
                    case "avro" -> ValueFormat.AVRO;
                    default -> throw new IllegalArgumentException("--format must be json or avro, but was " + format);
                });
                builder.avroSchemaId(switch (avroWirePrefix) {
                    case "none" -> null;
                    case "confluent" -> avroSchemaId;
                    default -> throw new IllegalArgumentException("--avro-wire-prefix must be none or confluent, but was " + avroWirePrefix);
                });
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage(), e);
            }
        }
    }

    /** {@code test-data verify}. */
    @Command(name = "verify", footerHeading = "%nPassed through:%n",
            description = "Compares the job's output and dead-letter topics (or files) with the ground truth; exits 1 if a bound is"
                    + " broken.",
            footer = "  --kafka.<property> <value>   Passed to the Kafka consumer, e.g. --kafka.security.protocol SASL_SSL")
    static final class Verify extends Subcommand {

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
            Map<String, String> kafkaProperties = kafkaProperties(spec, unmatched);
            GroundTruth groundTruth = GroundTruth.read(truth);
            VerificationReport verification;
            if (outputFile != null || dlqFile != null) {
                ObservedRecords observed = new ObservedRecords(groundTruth.size());
                readEnvelopes(required(spec, outputFile, "--output-file"), e -> observed.output(seqBytes(e)));
                readEnvelopes(required(spec, dlqFile, "--dlq-file"),
                        e -> observed.deadLetter(seqBytes(e), headerBytes(e, TestDataHeaders.DEAD_LETTER_REASON)));
                verification = Verifier.verify(groundTruth, observed);
            } else {
                String servers = required(spec, bootstrapServers, "--bootstrap-servers");
                String output = required(spec, outputTopic, "--output-topic");
                String dlq = required(spec, dlqTopic, "--dlq-topic");
                if (awaitGroup != null) {
                    String input = required(spec, inputTopic, "--input-topic");
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
            parent.out.print(verification.toText(fpp));
            if (report != null) {
                Files.writeString(report, verification.toJson(fpp), StandardCharsets.UTF_8);
            }
            List<String> broken = brokenBounds(verification);
            if (broken.isEmpty()) {
                parent.out.println("verdict: all bounds hold");
                return 0;
            }
            parent.out.println("verdict: FAILED: " + String.join("; ", broken));
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
    }

    /**
     * The {@code --kafka.<property> value} (or {@code --kafka.<property>=value}) pairs among the
     * arguments picocli did not match, as client properties; any other unmatched argument is an unknown
     * option.
     */
    static Map<String, String> kafkaProperties(CommandSpec spec, List<String> unmatched) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < unmatched.size(); i++) {
            String arg = unmatched.get(i);
            if (!arg.startsWith(KAFKA_PREFIX) || arg.length() == KAFKA_PREFIX.length()) {
                throw new UnmatchedArgumentException(spec.commandLine(),
                        (arg.startsWith("-") ? "Unknown option: '" : "Unexpected argument: '") + arg + "'");
            }
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                properties.put(arg.substring(KAFKA_PREFIX.length(), eq), arg.substring(eq + 1));
            } else if (i + 1 < unmatched.size()) {
                properties.put(arg.substring(KAFKA_PREFIX.length()), unmatched.get(++i));
            } else {
                throw new ParameterException(spec.commandLine(), "Missing value for option '" + arg + "'");
            }
        }
        return properties;
    }

    /** {@code value}, or a bad command line naming the option that this use of the command requires. */
    private static <T> T required(CommandSpec spec, T value, String option) {
        if (value == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '" + option + "'");
        }
        return value;
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
