package io.impressiondedup.local;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.testdata.Generation;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.GroundTruth;
import io.impressiondedup.testdata.GroundTruthWriter;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.KafkaTopicDestination;
import io.impressiondedup.testdata.StatsTopicCheck;
import io.impressiondedup.testdata.VerificationReport;
import io.impressiondedup.testdata.Verifier;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One command from a fresh clone to the whole pipeline on this machine: a real Kafka broker (KRaft,
 * in this JVM), generated impressions with their ground truth, the dedup job on a local Flink
 * MiniCluster with RocksDB and the web UI, and a report checked against the ground truth: the output and
 * dead-letter topics record by record, the reconciliation rows of {@code --stats-topic} per partition and
 * hour. Everything runs in this process and is shut down before it exits.
 */
public final class LocalRun {

    static final ConfigOption<Long> COUNT = ConfigOptions.key("count").longType().defaultValue(1_000_000L)
            .withDescription("Impressions to generate (with duplicates, late, malformed and far-future records).");
    static final ConfigOption<Double> DUPLICATE_SHARE = ConfigOptions.key("duplicate-share").doubleType().defaultValue(0.20)
            .withDescription("Share of generated records that are copies of earlier impressions.");
    static final ConfigOption<Integer> PARTITIONS = ConfigOptions.key("partitions").intType().defaultValue(4)
            .withDescription("Partitions of the input topic.");
    static final ConfigOption<Integer> WEB_PORT = ConfigOptions.key("web-port").intType().defaultValue(8081)
            .withDescription("Port of the Flink web UI (the next free one if taken).");
    static final ConfigOption<String> WORK_DIR = ConfigOptions.key("work-dir").stringType().defaultValue("local-run")
            .withDescription("Where the ground truth, checkpoints, report and full log go.");
    static final ConfigOption<Long> SEED = ConfigOptions.key("seed").longType().defaultValue(1L)
            .withDescription("Generator seed.");
    static final ConfigOption<Double> DELAYED_SHARE = ConfigOptions.key("delayed-share").doubleType().defaultValue(0.01)
            .withDescription("Share of requests from delayed clients (mobile, offline): their impressions keep their event time"
                    + " but reach Kafka --delay-min to --delay-max later, and must still be deduplicated (0: none).");
    static final ConfigOption<Duration> DELAY_MIN = ConfigOptions.key("delay-min").durationType().defaultValue(Duration.ofHours(1))
            .withDescription("Shortest delay of a delayed client's impressions (uniform up to --delay-max).");
    static final ConfigOption<Duration> DELAY_MAX = ConfigOptions.key("delay-max").durationType().defaultValue(Duration.ofHours(20))
            .withDescription("Longest delay of a delayed client's impressions; at most --allowed-lateness minus 1h.");

    /**
     * The local run's own options, and the job's options it passes on (declared once, in {@link
     * DedupJobOptions}): the FPP, allowed lateness, state backend and parallelism.
     */
    static final List<ConfigOption<?>> OPTIONS = List.of(COUNT, DUPLICATE_SHARE, DedupJobOptions.FPP, DedupJobOptions.PARALLELISM,
            PARTITIONS, DedupJobOptions.STATE_BACKEND, WEB_PORT, WORK_DIR, SEED, DELAYED_SHARE, DELAY_MIN, DELAY_MAX,
            DedupJobOptions.ALLOWED_LATENESS);
    /** The local run's parallelism where {@code --parallelism} is not given (the job's default is the cluster's). */
    static final int DEFAULT_PARALLELISM = 2;
    static final String USAGE = "mvn -B -q -pl local exec:exec@local-run -Dlocal-run.args=\"[--name value ...]\"";
    static final String SUMMARY = "Runs the dedup job end to end on this machine: Kafka broker, generated impressions, Flink MiniCluster"
            + " with the web UI, and a report checked against the ground truth.";

    /** The options of {@code args}, typed and checked; fails naming the option. */
    static Configuration parse(String... args) {
        Configuration options = Configuration.fromMap(OptionSources.fromArguments(args, OPTIONS, false));
        DedupJobConfig.check(options, OPTIONS);
        require(options.get(COUNT) >= 1000, COUNT, "at least 1000 records");
        require(options.get(DUPLICATE_SHARE) >= 0 && options.get(DUPLICATE_SHARE) <= 0.8, DUPLICATE_SHARE, "a share in [0, 0.8]");
        require(parallelism(options) <= 16, DedupJobOptions.PARALLELISM, "an integer in [1, 16]");
        require(options.get(PARTITIONS) >= 1, PARTITIONS, "a positive number of partitions");
        return options;
    }

    private static void require(boolean valid, ConfigOption<?> option, String expected) {
        if (!valid) {
            throw new InvalidOptionException("Invalid value for --" + option.key() + ": expected " + expected);
        }
    }

    static int parallelism(Configuration options) {
        return options.getOptional(DedupJobOptions.PARALLELISM).orElse(DEFAULT_PARALLELISM);
    }

    static final String INPUT_TOPIC = "impressions";
    static final String OUTPUT_TOPIC = "impressions-deduplicated";
    static final String DLQ_TOPIC = "impressions-dead-letters";
    /** The reconciliation rows ({@code --stats-topic}): per input partition and event-time hour, checked against the verifier. */
    static final String STATS_TOPIC = "impressions-stats";
    /** The shortest event time the stream spans: the job's retention + allowed lateness (defaults) + 1 day. */
    static final Duration MIN_SPAN = DedupJobOptions.RETENTION.defaultValue().plus(DedupJobOptions.ALLOWED_LATENESS.defaultValue())
            .plusDays(1);

    private final PrintStream out;

    private LocalRun(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (OptionSources.helpRequested(args)) {
                System.out.print(OptionSources.help(USAGE, SUMMARY, OPTIONS, false));
                return;
            }
            Configuration commandLine = parse(args);
            Path workDir = Path.of(commandLine.get(WORK_DIR)).toAbsolutePath();
            Files.createDirectories(workDir);
            System.setProperty("impression.dedup.log.file", workDir.resolve("local-run.log").toString());
            ((org.apache.logging.log4j.core.LoggerContext) org.apache.logging.log4j.LogManager.getContext(false)).reconfigure();
            exit = new LocalRun(System.out).run(commandLine, workDir);
        } catch (InvalidOptionException e) {
            System.err.println("local-run: " + e.getMessage());
            exit = 2;
        } catch (Exception e) {
            System.err.println("local-run failed: " + e);
            e.printStackTrace();
            exit = 3;
        }
        if (exit != 0) {
            System.exit(exit);
        }
    }

    int run(Configuration cl, Path workDir) throws Exception {
        long count = cl.get(COUNT);
        double fpp = cl.get(DedupJobOptions.FPP);
        int parallelism = parallelism(cl);
        long started = System.nanoTime();
        Duration allowedLateness = cl.get(DedupJobOptions.ALLOWED_LATENESS);
        // Long enough for buckets to expire and for records to be late under the job's rules, whatever the lateness.
        Duration span = max(MIN_SPAN, DedupJobOptions.RETENTION.defaultValue().plus(allowedLateness).plusDays(1));
        GeneratorSettings settings;
        try {
            settings = GeneratorSettings.builder()
                    .count(count).seed(cl.get(SEED)).duplicateShare(cl.get(DUPLICATE_SHARE)).span(span)
                    .retention(DedupJobOptions.RETENTION.defaultValue()).bucketSize(DedupJobOptions.BUCKET_SIZE.defaultValue())
                    .allowedLateness(allowedLateness).delayedShare(cl.get(DELAYED_SHARE)).delayMin(cl.get(DELAY_MIN))
                    .delayMax(cl.get(DELAY_MAX)).build();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException(e.getMessage(), e);
        }
        step("Local run: %,d impressions over %s of event time (%s%% from delayed clients, %s to %s late), parallelism %d,"
                        + " %s state, FPP %s, allowed lateness %s; work dir %s",
                count, human(span), 100 * cl.get(DELAYED_SHARE), human(cl.get(DELAY_MIN)), human(cl.get(DELAY_MAX)), parallelism,
                cl.get(DedupJobOptions.STATE_BACKEND).toString(), fpp, human(allowedLateness), workDir);

        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start()) {
            step("Kafka %s (KRaft, in this JVM) is up", kafka.bootstrapServers());
            kafka.createTopics(Map.of(INPUT_TOPIC, cl.get(PARTITIONS), OUTPUT_TOPIC, cl.get(PARTITIONS), DLQ_TOPIC, 1, STATS_TOPIC, 1));

            Path truthFile = workDir.resolve("truth.csv");
            step("Generating %,d impressions into topic %s (ground truth: %s)", count, INPUT_TOPIC, truthFile);
            long generationStart = System.nanoTime();
            Map<?, Long> classes;
            try (KafkaTopicDestination destination = new KafkaTopicDestination(kafka.bootstrapServers(), INPUT_TOPIC, Map.of());
                    GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
                classes = Generation.run(new ImpressionGenerator(settings), count, destination, truth, 0, out);
            }
            double generationSeconds = seconds(generationStart);

            // Planned as a user would: the expected unique impressions per day, with 50% headroom.
            long uniquePerDay = (long) Math.ceil(1.5 * count * (1 - cl.get(DUPLICATE_SHARE)) * Duration.ofDays(1).toMillis() / span.toMillis());
            DedupJobConfig config = DedupJobConfig.parse(
                    "--bootstrap-servers", kafka.bootstrapServers(),
                    "--input-topic", INPUT_TOPIC, "--output-topic", OUTPUT_TOPIC, "--dlq-topic", DLQ_TOPIC,
                    "--stats-topic", STATS_TOPIC, "--bounded", "--starting-offsets", "earliest",
                    "--capacity", Long.toString(uniquePerDay), "--fpp", Double.toString(fpp),
                    "--allowed-lateness", human(allowedLateness),
                    "--parallelism", Integer.toString(parallelism), "--state-backend", cl.get(DedupJobOptions.STATE_BACKEND).toString(),
                    "--checkpoint-interval", "10s", "--checkpoint-dir", workDir.resolve("checkpoints").toUri().toString());

            int webPort = LoopbackPorts.firstFree(cl.get(WEB_PORT), 20);
            Configuration flink = DedupJob.flinkConfiguration(config);
            flink.set(RestOptions.PORT, webPort);
            flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
            flink.set(WebOptions.TMP_DIR, workDir.resolve("flink-web").toString()); // its upload directory, not /tmp's
            // The REST API caches metrics for 10 s by default: longer than half of a default run, whose
            // report would then show the gauges as they were before the first records.
            flink.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
            // Accumulators reach the client with the TaskManager's heartbeats (every 10 s by default): once a
            // second, the progress lines and the steady rate have a sample a second, not two in a short run.
            flink.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(1));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(flink);
            env.setParallelism(parallelism);
            DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), DedupJob.kafkaSinks(config));
            step("Running the dedup job on a local Flink cluster; web UI: http://localhost:%d", webPort);
            long jobStart = System.nanoTime();
            JobClient job = env.executeAsync(DedupJob.jobName(config));
            JobMonitor monitor = new JobMonitor(webPort, job.getJobID().toHexString());
            JobExecutionResult result;
            long lastInput = -1;
            SteadyRate steady = new SteadyRate(count);
            while (true) {
                try {
                    result = job.getJobExecutionResult().get(1, java.util.concurrent.TimeUnit.SECONDS);
                    break;
                } catch (java.util.concurrent.TimeoutException e) {
                    monitor.poll();
                    Map<String, Object> accumulators;
                    try {
                        accumulators = job.getAccumulators().get(2, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (Exception notYet) {
                        continue;
                    }
                    // Accumulators reach the client with the task managers' heartbeats, every few seconds.
                    long input = Accounting.count(accumulators, Accounting.INPUT);
                    if (input != lastInput && input > 0) {
                        steady.add(seconds(jobStart), input);
                        out.printf(Locale.ROOT, "  %5.0f s  %,.0f records/s  %s%n", seconds(jobStart), input / seconds(jobStart),
                                Accounting.summary(accumulators));
                        if (input >= count) {
                            out.printf(Locale.ROOT, "  %5.0f s  all input read; the final checkpoint commits the output%n", seconds(jobStart));
                        }
                        lastInput = input;
                    }
                }
            }
            double jobSeconds = seconds(jobStart);
            Map<String, Object> accumulators = result.getAllAccumulatorResults();

            step("Verifying the output and dead-letter topics (read_committed) against the ground truth");
            long verifyStart = System.nanoTime();
            VerificationReport verification = Verifier.verifyTopics(GroundTruth.read(truthFile), kafka.bootstrapServers(),
                    OUTPUT_TOPIC, DLQ_TOPIC);
            // The end of input closed every hour, so the stats topic holds all its rows.
            StatsTopicCheck reconciliation = StatsTopicCheck.run(truthFile, kafka.bootstrapServers(), INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC,
                    STATS_TOPIC);
            double verifySeconds = seconds(verifyStart);

            String report = report(count, classes, accumulators, verification, reconciliation, fpp, generationSeconds, jobSeconds,
                    verifySeconds, steady, monitor, seconds(started));
            Files.writeString(workDir.resolve("report.txt"), report, StandardCharsets.UTF_8);
            Files.writeString(workDir.resolve("verification.json"), verification.toJson(fpp), StandardCharsets.UTF_8);
            out.println();
            out.print(report);
            List<String> falsePositivesExceeded = FalsePositiveLimit.exceeded(verification,
                    FalsePositiveLimit.of(truthFile, config.dedupSettings().plan()));
            falsePositivesExceeded.forEach(line -> out.println("Too many false positives: " + line));
            boolean ok = verification.exactlyOnceViolations().isEmpty() && falsePositivesExceeded.isEmpty()
                    && reconciliation.problems().isEmpty();
            out.println(ok ? "Result: OK (no duplicate passed, no genuine impression dead-lettered, nothing lost or written twice,"
                    + " false positives within the bound from the filters' fill, reconciliation rows equal to the verifier's counts)"
                    : "Result: FAILED (see above)");
            step("Shutting down Kafka; report in %s", workDir.resolve("report.txt"));
            return ok ? 0 : 1;
        }
    }

    private String report(long count, Map<?, Long> classes, Map<String, Object> accumulators, VerificationReport v,
            StatsTopicCheck reconciliation, double fpp,
            double generationSeconds, double jobSeconds, double verifySeconds, SteadyRate steady, JobMonitor monitor,
            double totalSeconds) {
        long input = Accounting.count(accumulators, Accounting.INPUT);
        List<String> lines = new ArrayList<>();
        lines.add("=== Local run report ===");
        lines.add(String.format(Locale.ROOT, "Generated:        %,d records %s", count, classes));
        lines.add(String.format(Locale.ROOT, "Accounting:       %s", Accounting.summary(accumulators)));
        lines.add(String.format(Locale.ROOT, "Late and DLQ:     late %,d; late duplicates %,d (dropped, part of duplicates);"
                        + " dead-lettered %,d (malformed, oversized, far-future; late ones are counted as late)",
                Accounting.count(accumulators, DedupOperator.ACCUMULATOR_LATE),
                Accounting.count(accumulators, DedupOperator.ACCUMULATOR_LATE_DUPLICATES),
                Accounting.count(accumulators, Accounting.DEAD_LETTERED)));
        lines.add(String.format(Locale.ROOT, "Output topic:     %,d records; dead-letter topic: %,d records %s", v.outputRecords(),
                v.deadLetterRecords(), v.deadLettersByReason()));
        lines.add(String.format(Locale.ROOT, "Genuine in DLQ:   %,d genuine impressions dead-lettered, by reason: %s (must be 0)",
                v.genuineDeadLettered(), v.genuineDeadLetteredText()));
        lines.add(String.format(Locale.ROOT, "False positives:  %,d of %,d unique impressions = %.6f (configured FPP %s)",
                v.falsePositives(), v.expectedOutputs(), v.falsePositiveRate(), fpp));
        lines.add(String.format(Locale.ROOT, "False negatives:  %,d (duplicates that reached the output)", v.falseNegatives()));
        lines.add(String.format(Locale.ROOT, "Lost:             %,d; written twice: %,d; misclassified dead letters: %,d; dead letters in output: %,d",
                v.lost(), v.writtenTwice(), v.misclassifiedDeadLetters(), v.deadLettersInOutput()));
        lines.add(String.format(Locale.ROOT, "Reconciliation:   topic %s: %s", STATS_TOPIC, reconciliation.summary()));
        lines.add(String.format(Locale.ROOT, "Throughput:       %,.0f records/s over the job's %.1f s (including start-up and the final checkpoint)",
                input / jobSeconds, jobSeconds));
        lines.add(String.format(Locale.ROOT, "Steady rate:      %s (%s)", steady.recordsPerSecond().isPresent()
                ? String.format(Locale.ROOT, "%,.0f records/s", steady.recordsPerSecond().getAsDouble()) : "not measured",
                steady.describeWindow()));
        lines.add(String.format(Locale.ROOT, "State:            last checkpoint %s (full size %s); %s",
                bytes(monitor.checkpointedBytes), bytes(monitor.checkpointFullBytes), monitor.liveBuckets > 0
                        ? String.format(Locale.ROOT, "Bloom filters %s in %d shard-buckets (gauges as last fetched during the run)",
                                bytes(monitor.bloomBytes), monitor.liveBuckets)
                        : "Bloom filter gauges not seen (the job ended before the REST API had them)"));
        lines.add(String.format(Locale.ROOT, "Time:             generate %.1f s, job %.1f s, verify %.1f s, total %.1f s",
                generationSeconds, jobSeconds, verifySeconds, totalSeconds));
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    /** A duration as the options take it: {@code 4d}, {@code 20h}, {@code 90min}, {@code 1500ms}. */
    static String human(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % Duration.ofDays(1).toMillis() == 0) {
            return ms / Duration.ofDays(1).toMillis() + "d";
        } else if (ms != 0 && ms % Duration.ofHours(1).toMillis() == 0) {
            return ms / Duration.ofHours(1).toMillis() + "h";
        } else if (ms != 0 && ms % Duration.ofMinutes(1).toMillis() == 0) {
            return ms / Duration.ofMinutes(1).toMillis() + "min";
        }
        return ms + "ms";
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private void step(String format, Object... args) {
        out.printf(Locale.ROOT, "==> " + format + "%n", args);
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static String bytes(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        return bytes < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0) : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    /** Reads checkpoint sizes and the dedup gauges from the REST API while the job runs. */
    static final class JobMonitor {
        private final java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        private final String base;
        private final String jobId;
        long checkpointedBytes = -1;
        long checkpointFullBytes = -1;
        long bloomBytes = -1;
        long liveBuckets = -1;

        JobMonitor(int port, String jobId) {
            this.base = "http://127.0.0.1:" + port;
            this.jobId = jobId;
        }

        void poll() {
            try {
                com.fasterxml.jackson.databind.JsonNode checkpoints = get("/jobs/" + jobId + "/checkpoints");
                com.fasterxml.jackson.databind.JsonNode completed = checkpoints.path("latest").path("completed");
                if (!completed.isMissingNode() && !completed.isNull()) {
                    checkpointedBytes = completed.path("checkpointed_size").asLong(checkpointedBytes);
                    checkpointFullBytes = completed.path("state_size").asLong(checkpointFullBytes);
                }
                com.fasterxml.jackson.databind.JsonNode vertices = get("/jobs/" + jobId).path("vertices");
                for (com.fasterxml.jackson.databind.JsonNode vertex : vertices) {
                    if (vertex.path("name").asText().contains(DedupOperator.NAME)) {
                        String prefix = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
                        List<String> wanted = new ArrayList<>();
                        for (com.fasterxml.jackson.databind.JsonNode available : get(prefix)) {
                            String id = available.path("id").asText();
                            if (id.endsWith(".bloom-bytes") || id.endsWith(".live-buckets")) {
                                wanted.add(id);
                            }
                        }
                        if (wanted.isEmpty()) {
                            continue;
                        }
                        for (com.fasterxml.jackson.databind.JsonNode metric : get(prefix + "?agg=sum&get=" + encode(String.join(",", wanted)))) {
                            if (metric.path("id").asText().endsWith("bloom-bytes")) {
                                bloomBytes = (long) metric.path("sum").asDouble();
                            } else if (metric.path("id").asText().endsWith("live-buckets")) {
                                liveBuckets = (long) metric.path("sum").asDouble();
                            }
                        }
                    }
                }
            } catch (Exception e) {
                // The REST API is a convenience for the report; the job's result does not depend on it.
            }
        }

        private com.fasterxml.jackson.databind.JsonNode get(String path) throws Exception {
            java.net.http.HttpResponse<String> response = http.send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + path)).timeout(Duration.ofSeconds(2)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            return json.readTree(response.body());
        }

        private static String encode(String s) {
            return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
        }
    }
}
