package io.impressiondedup.testdata;

import io.impressiondedup.state.cli.CommandLine;
import io.impressiondedup.state.cli.CommandLineOptions;
import io.impressiondedup.state.cli.InvalidCommandLineException;
import io.impressiondedup.state.plan.PlanCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * {@code test-data generate ...} and {@code test-data verify ...}: the generator and the
 * ground-truth verifier on the command line. {@code --help} after a command lists its options.
 */
public final class TestDataCommand {

    // ---- generate ----
    static final ConfigOption<Long> COUNT = ConfigOptions.key("count").longType().defaultValue(1_000_000L)
            .withDescription("Records to generate.");
    static final ConfigOption<Long> SEED = ConfigOptions.key("seed").longType().defaultValue(1L)
            .withDescription("Random seed: the same seed and options give the same records, byte for byte.");
    static final ConfigOption<Double> DUPLICATE_SHARE = ConfigOptions.key("duplicate-share").doubleType().defaultValue(0.20)
            .withDescription("Share of records that are copies of an earlier impression.");
    static final ConfigOption<Double> BEYOND_RETENTION_SHARE = ConfigOptions.key("beyond-retention-share").doubleType()
            .defaultValue(0.02).withDescription("Share of copies stamped beyond retention + one bucket (to pass as new).");
    static final ConfigOption<Double> LATE_SHARE = ConfigOptions.key("late-share").doubleType().defaultValue(0.002)
            .withDescription("Share of late records (stamped max(retention + 2 buckets, allowed lateness + 1 bucket + 6h) behind the"
                    + " stream, or more).");
    static final ConfigOption<Double> MALFORMED_SHARE = ConfigOptions.key("malformed-share").doubleType().defaultValue(0.003)
            .withDescription("Share of malformed records (invalid JSON, missing fields, garbage, oversized, ...).");
    static final ConfigOption<Double> FUTURE_SHARE = ConfigOptions.key("future-share").doubleType().defaultValue(0.001)
            .withDescription("Share of records dated in the far future.");
    static final ConfigOption<Integer> MAX_ADS = ConfigOptions.key("max-ads-per-request").intType().defaultValue(3)
            .withDescription("Most ads one request shows (each a separate impression).");
    static final ConfigOption<Duration> SPAN = ConfigOptions.key("span").durationType().defaultValue(Duration.ofDays(4))
            .withDescription("Event time the stream covers.");
    static final ConfigOption<String> START = ConfigOptions.key("start").stringType().noDefaultValue()
            .withDescription("Event time of the first record, ISO-8601 (default: now minus the span, so the stream ends now).");
    static final ConfigOption<Duration> MAX_JITTER = ConfigOptions.key("max-jitter").durationType().defaultValue(Duration.ofSeconds(30))
            .withDescription("Out-of-order jitter: records are stamped up to this far behind the stream clock.");
    static final ConfigOption<Duration> RETENTION = ConfigOptions.key("retention").durationType().defaultValue(Duration.ofDays(2))
            .withDescription("The job's retention (classes late and beyond-retention copies accordingly).");
    static final ConfigOption<Duration> BUCKET_SIZE = ConfigOptions.key("bucket-size").durationType().defaultValue(Duration.ofDays(1))
            .withDescription("The job's bucket size.");
    static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key("allowed-lateness").durationType()
            .defaultValue(Duration.ofDays(1))
            .withDescription("The job's allowed lateness (late records are stamped beyond it; delays stay inside it).");
    static final ConfigOption<Double> DELAYED_SHARE = ConfigOptions.key("delayed-share").doubleType().defaultValue(0.0)
            .withDescription("Share of requests from delayed clients (mobile, offline): their impressions keep their event time"
                    + " but are written --delay-min to --delay-max later into the stream; some copies are re-sent with the"
                    + " original timestamp.");
    static final ConfigOption<Duration> DELAY_MIN = ConfigOptions.key("delay-min").durationType().defaultValue(Duration.ofHours(1))
            .withDescription("Shortest delay of a delayed client's impressions (uniform up to --delay-max).");
    static final ConfigOption<Duration> DELAY_MAX = ConfigOptions.key("delay-max").durationType().defaultValue(Duration.ofHours(20))
            .withDescription("Longest delay of a delayed client's impressions; at most --allowed-lateness minus 1h.");
    static final ConfigOption<String> OUTPUT = ConfigOptions.key("output").stringType().noDefaultValue()
            .withDescription("JSONL file to write records to (one envelope per line); or give --topic.");
    static final ConfigOption<String> TOPIC = ConfigOptions.key("topic").stringType().noDefaultValue()
            .withDescription("Kafka topic to produce records to (key = request id, header testdata.seq).");
    static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("bootstrap-servers").stringType().noDefaultValue()
            .withDescription("Kafka bootstrap servers.");
    static final ConfigOption<String> TRUTH = ConfigOptions.key("truth").stringType().noDefaultValue()
            .withDescription("Ground-truth CSV: written by generate, read by verify.");
    static final ConfigOption<Double> RATE = ConfigOptions.key("rate").doubleType().defaultValue(0.0)
            .withDescription("Records per second to produce at; 0 for as fast as possible.");

    // ---- verify ----
    static final ConfigOption<String> OUTPUT_TOPIC = ConfigOptions.key("output-topic").stringType().noDefaultValue()
            .withDescription("The job's output topic (read with isolation.level=read_committed).");
    static final ConfigOption<String> DLQ_TOPIC = ConfigOptions.key("dlq-topic").stringType().noDefaultValue()
            .withDescription("The job's dead-letter topic.");
    static final ConfigOption<String> OUTPUT_FILE = ConfigOptions.key("output-file").stringType().noDefaultValue()
            .withDescription("Instead of topics: the output as a JSONL envelope file.");
    static final ConfigOption<String> DLQ_FILE = ConfigOptions.key("dlq-file").stringType().noDefaultValue()
            .withDescription("Instead of topics: the dead letters as a JSONL envelope file (headers with dedup.reason).");
    static final ConfigOption<Double> CONFIGURED_FPP = ConfigOptions.key("configured-fpp").doubleType().noDefaultValue()
            .withDescription("The FPP the job ran with, shown next to the measured rate.");
    static final ConfigOption<Double> MAX_FP_RATE = ConfigOptions.key("max-fp-rate").doubleType().noDefaultValue()
            .withDescription("Fail (exit 1) if the false-positive rate exceeds this.");
    static final ConfigOption<Long> MAX_FALSE_NEGATIVES = ConfigOptions.key("max-false-negatives").longType().defaultValue(0L)
            .withDescription("Fail if more duplicates than this reached the output.");
    static final ConfigOption<Long> MAX_LOST = ConfigOptions.key("max-lost").longType().defaultValue(0L)
            .withDescription("Fail if more records than this are in no topic though they had to be dead-lettered.");
    static final ConfigOption<Long> MAX_WRITTEN_TWICE = ConfigOptions.key("max-written-twice").longType().defaultValue(0L)
            .withDescription("Fail if more records than this appear twice.");
    static final ConfigOption<Long> MAX_MISCLASSIFIED = ConfigOptions.key("max-misclassified").longType().defaultValue(0L)
            .withDescription("Fail if more dead letters than this carry the wrong reason, or more dead-letter records than this reached the output.");
    static final ConfigOption<Long> MAX_GENUINE_DEAD_LETTERED = ConfigOptions.key("max-genuine-dead-lettered").longType()
            .defaultValue(0L)
            .withDescription("Fail if more genuine impressions than this (identity groups with no record in the output) reached"
                    + " only the dead-letter topic, e.g. an in-time impression dead-lettered as late.");
    static final ConfigOption<String> REPORT = ConfigOptions.key("report").stringType().noDefaultValue()
            .withDescription("Also write the report as JSON to this file.");
    static final ConfigOption<String> AWAIT_GROUP = ConfigOptions.key("await-group").stringType().noDefaultValue()
            .withDescription("Before verifying a running job, wait until this consumer group (the job's --group-id) has"
                    + " committed the whole --input-topic and no transaction is open on the output and dead-letter topics.");
    static final ConfigOption<String> INPUT_TOPIC = ConfigOptions.key("input-topic").stringType().noDefaultValue()
            .withDescription("The job's input topic, for --await-group.");
    static final ConfigOption<Duration> AWAIT_TIMEOUT = ConfigOptions.key("await-timeout").durationType()
            .defaultValue(Duration.ofMinutes(5)).withDescription("How long --await-group waits before failing.");

    static final CommandLineOptions GENERATE = new CommandLineOptions("test-data generate",
                    "Generates impressions with duplicates, late, malformed and far-future records, to a JSONL file or a"
                            + " Kafka topic, and their ground truth.")
            .add(COUNT, SEED, DUPLICATE_SHARE, BEYOND_RETENTION_SHARE, LATE_SHARE, MALFORMED_SHARE, FUTURE_SHARE, MAX_ADS, SPAN, START,
                    MAX_JITTER, RETENTION, BUCKET_SIZE, ALLOWED_LATENESS, DELAYED_SHARE, DELAY_MIN, DELAY_MAX, OUTPUT, TOPIC,
                    BOOTSTRAP_SERVERS, TRUTH, RATE)
            .require(COUNT, c -> c > 0, "a positive number of records")
            .require(RATE, r -> r >= 0, "a non-negative rate")
            .require(BUCKET_SIZE, PlanCommand::isBucketSize, "a duration of at least 1min that divides a day or is whole days")
            .require(START, s -> Instant.parse(s) != null, "an ISO-8601 instant such as 2026-11-20T00:00:00Z")
            .addPassThrough("kafka.", "Passed to the Kafka producer (e.g. --kafka.security.protocol SASL_SSL).");

    static final CommandLineOptions VERIFY = new CommandLineOptions("test-data verify",
                    "Compares the job's output and dead-letter topics (or files) with the ground truth; exits 1 if a bound is"
                            + " broken.")
            .add(TRUTH, BOOTSTRAP_SERVERS, OUTPUT_TOPIC, DLQ_TOPIC, OUTPUT_FILE, DLQ_FILE, CONFIGURED_FPP, MAX_FP_RATE,
                    MAX_FALSE_NEGATIVES, MAX_LOST, MAX_WRITTEN_TWICE, MAX_MISCLASSIFIED, MAX_GENUINE_DEAD_LETTERED, REPORT, AWAIT_GROUP, INPUT_TOPIC, AWAIT_TIMEOUT)
            .addPassThrough("kafka.", "Passed to the Kafka consumer.");

    private TestDataCommand() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; exit code 0 ok, 1 a verification bound broken, 2 a bad command line, 3 an I/O failure. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            out.println("Usage: test-data generate|verify [--name value ...]   (--help after a command lists its options)");
            return args.length == 0 ? 2 : 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            switch (args[0]) {
                case "generate":
                    return generate(GENERATE.parse(rest), out, err);
                case "verify":
                    return verify(VERIFY.parse(rest), out, err);
                default:
                    throw new InvalidCommandLineException("Unknown command '" + args[0] + "': use generate or verify");
            }
        } catch (InvalidCommandLineException e) {
            err.println("test-data: " + e.getMessage());
            return 2;
        } catch (IOException | RuntimeException e) {
            err.println("test-data " + args[0] + " failed: " + e);
            return 3;
        }
    }

    static GeneratorSettings generatorSettings(CommandLine cl) {
        GeneratorSettings.Builder builder = GeneratorSettings.builder()
                .count(cl.get(COUNT))
                .seed(cl.get(SEED))
                .duplicateShare(cl.get(DUPLICATE_SHARE))
                .beyondRetentionShare(cl.get(BEYOND_RETENTION_SHARE))
                .lateShare(cl.get(LATE_SHARE))
                .malformedShare(cl.get(MALFORMED_SHARE))
                .futureShare(cl.get(FUTURE_SHARE))
                .maxAdsPerRequest(cl.get(MAX_ADS))
                .span(cl.get(SPAN))
                .maxJitter(cl.get(MAX_JITTER))
                .retention(cl.get(RETENTION))
                .bucketSize(cl.get(BUCKET_SIZE))
                .allowedLateness(cl.get(ALLOWED_LATENESS))
                .delayedShare(cl.get(DELAYED_SHARE))
                .delayMin(cl.get(DELAY_MIN))
                .delayMax(cl.get(DELAY_MAX));
        cl.getOptional(START).ifPresent(s -> builder.start(Instant.parse(s)));
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidCommandLineException(e.getMessage(), e);
        }
    }

    private static int generate(CommandLine cl, PrintStream out, PrintStream err) throws IOException {
        if (cl.helpRequested()) {
            out.print(GENERATE.help());
            return 0;
        }
        GeneratorSettings settings = generatorSettings(cl);
        Path truthFile = Path.of(cl.getRequired(TRUTH));
        try (RecordDestination destination = destination(cl); GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
            Map<RecordClass, Long> counts = Generation.run(new ImpressionGenerator(settings), settings.count(), destination, truth,
                    cl.get(RATE), err);
            out.println("records by class: " + counts);
            out.println("ground truth: " + truthFile);
        }
        return 0;
    }

    private static RecordDestination destination(CommandLine cl) throws IOException {
        boolean toFile = cl.getOptional(OUTPUT).isPresent();
        boolean toTopic = cl.getOptional(TOPIC).isPresent();
        if (toFile == toTopic) {
            throw new InvalidCommandLineException("Give exactly one of --output (a JSONL file) and --topic (with --bootstrap-servers)");
        }
        if (toFile) {
            return new JsonlFileDestination(Path.of(cl.get(OUTPUT)));
        }
        return new KafkaTopicDestination(cl.getRequired(BOOTSTRAP_SERVERS), cl.get(TOPIC), cl.passThrough("kafka."));
    }

    private static int verify(CommandLine cl, PrintStream out, PrintStream err) throws IOException {
        if (cl.helpRequested()) {
            out.print(VERIFY.help());
            return 0;
        }
        GroundTruth truth = GroundTruth.read(Path.of(cl.getRequired(TRUTH)));
        ObservedRecords observed = new ObservedRecords(truth.size());
        boolean fromFiles = cl.getOptional(OUTPUT_FILE).isPresent() || cl.getOptional(DLQ_FILE).isPresent();
        if (fromFiles) {
            readEnvelopes(Path.of(cl.getRequired(OUTPUT_FILE)), e -> observed.output(seqBytes(e)));
            readEnvelopes(Path.of(cl.getRequired(DLQ_FILE)), e -> observed.deadLetter(seqBytes(e), headerBytes(e, TestDataHeaders.DEAD_LETTER_REASON)));
        } else {
            String servers = cl.getRequired(BOOTSTRAP_SERVERS);
            Map<String, String> props = cl.passThrough("kafka.");
            if (cl.getOptional(AWAIT_GROUP).isPresent()) {
                try (KafkaCatchUp catchUp = new KafkaCatchUp(servers, props)) {
                    catchUp.await(cl.get(AWAIT_GROUP), cl.getRequired(INPUT_TOPIC), List.of(cl.getRequired(OUTPUT_TOPIC), cl.getRequired(DLQ_TOPIC)),
                            cl.get(AWAIT_TIMEOUT));
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Waiting for group " + cl.get(AWAIT_GROUP) + " to catch up failed: " + e.getMessage(), e);
                }
            }
            TopicReader.readAll(servers, cl.getRequired(OUTPUT_TOPIC), props, r -> observed.output(header(r, TestDataHeaders.SEQ)));
            TopicReader.readAll(servers, cl.getRequired(DLQ_TOPIC), props,
                    r -> observed.deadLetter(header(r, TestDataHeaders.SEQ), header(r, TestDataHeaders.DEAD_LETTER_REASON)));
        }
        VerificationReport report = Verifier.verify(truth, observed);
        double configuredFpp = cl.getOptional(CONFIGURED_FPP).orElse(Double.NaN);
        out.print(report.toText(configuredFpp));
        if (cl.getOptional(REPORT).isPresent()) {
            Files.writeString(Path.of(cl.get(REPORT)), report.toJson(configuredFpp), StandardCharsets.UTF_8);
        }
        List<String> broken = brokenBounds(report, cl);
        if (broken.isEmpty()) {
            out.println("verdict: all bounds hold");
            return 0;
        }
        out.println("verdict: FAILED: " + String.join("; ", broken));
        return 1;
    }

    static List<String> brokenBounds(VerificationReport report, CommandLine cl) {
        List<String> broken = new ArrayList<>();
        cl.getOptional(MAX_FP_RATE).ifPresent(max -> {
            if (report.falsePositiveRate() > max) {
                broken.add("false-positive rate " + report.falsePositiveRate() + " > " + max);
            }
        });
        check(broken, "false negatives", report.falseNegatives(), cl.get(MAX_FALSE_NEGATIVES));
        check(broken, "lost records", report.lost(), cl.get(MAX_LOST));
        check(broken, "records written twice", report.writtenTwice(), cl.get(MAX_WRITTEN_TWICE));
        check(broken, "misclassified dead letters", report.misclassifiedDeadLetters(), cl.get(MAX_MISCLASSIFIED));
        check(broken, "dead-letter records in the output", report.deadLettersInOutput(), cl.get(MAX_MISCLASSIFIED));
        check(broken, "genuine impressions dead-lettered", report.genuineDeadLettered(), cl.get(MAX_GENUINE_DEAD_LETTERED));
        check(broken, "unidentified records", report.unidentified(), 0);
        return broken;
    }

    private static void check(List<String> broken, String what, long value, long max) {
        if (value > max) {
            broken.add(what + " " + value + " > " + max);
        }
    }

    private static byte[] header(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record, String name) {
        org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
        return header == null ? null : header.value();
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
