package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.GroundTruth;
import io.impressiondedup.testdata.GroundTruthWriter;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.KafkaCatchUp;
import io.impressiondedup.testdata.KafkaTopicDestination;
import io.impressiondedup.testdata.ObservedRecords;
import io.impressiondedup.testdata.TestDataHeaders;
import io.impressiondedup.testdata.TopicReader;
import io.impressiondedup.testdata.VerificationReport;
import io.impressiondedup.testdata.Verifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/**
 * The job on a real Flink standalone cluster, driven by the scripts users run ({@code
 * deploy/local/cluster.sh}, {@code deploy/local/job.sh}): separate JobManager and TaskManager JVMs,
 * a Kafka broker of its own, the shaded {@code dedup-job.jar} submitted through the REST API.
 *
 * <p>Submit at parallelism 2 and process a first third of the stream; stop with a savepoint; add
 * the second third (with copies of impressions from the first); resume from the savepoint at
 * parallelism 3; while the last third streams in, kill -9 a TaskManager and start a new one. Then
 * the verifier must find no duplicate passed, nothing lost, nothing written twice, and a
 * false-positive rate within 2x the FPP; Prometheus must expose the dedup metrics; and stopping the
 * cluster must leave no process behind, even with pid files gone as after a failed run.
 */
class ClusterIT {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final double FPP = 0.001;
    static final int RECORDS = 150_000;
    static final String GROUP = "cluster-it";

    private final Map<String, String> env = new HashMap<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private String bootstrap;
    private int restPort;

    @Test
    void savepointRescaleAndFailoverKeepEveryImpressionExactlyOnce() throws Exception {
        Path runDir = Files.createDirectories(Path.of("target/cluster-it").toAbsolutePath());
        deleteRecursively(runDir);
        restPort = freePort();
        int kafkaPort = freePort();
        env.put("RUN_DIR", runDir.toString());
        env.put("REST_PORT", Integer.toString(restPort));
        env.put("KAFKA_PORT", Integer.toString(kafkaPort));
        env.put("CONTROLLER_PORT", Integer.toString(freePort()));
        env.put("JM_RPC_PORT", Integer.toString(freePort()));
        env.put("JAR", REPO.resolve("job/target/dedup-job.jar").toString());
        bootstrap = "127.0.0.1:" + kafkaPort;
        long started = System.nanoTime();
        try {
            script("cluster.sh", "start", "2");
            createTopics();
            Path truthFile = runDir.resolve("truth.csv");
            GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(77).span(Duration.ofDays(4)).build();
            ImpressionGenerator generator = new ImpressionGenerator(settings);
            List<String> jobArgs = List.of("--bootstrap-servers", bootstrap, "--input-topic", "impressions",
                    "--output-topic", "deduplicated", "--dlq-topic", "dead-letters", "--capacity", "45000",
                    "--fpp", Double.toString(FPP), "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
                    "--group-id", GROUP, "--transactional-id-prefix", "cluster-it");

            try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                    KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, "impressions", Map.of())) {
                produce(generator, RECORDS / 3, input, truth);
                String first = submit(2, null, jobArgs);
                awaitAllInputCommitted("the first third at parallelism 2");
                String savepoint = script("job.sh", "stop-with-savepoint", first).trim();

                produce(generator, RECORDS / 3, input, truth); // holds copies of impressions of the first third
                String second = submit(3, savepoint, jobArgs);
                awaitAllInputCommitted("the second third at parallelism 3 from the savepoint");

                Thread last = new Thread(() -> produceQuietly(generator, input, truth));
                last.start();
                waitUntil(Duration.ofSeconds(120), "progress on the last third", () -> committedRecords() > 2L * RECORDS / 3 + 2000);
                script("cluster.sh", "kill-taskmanager", "0");
                script("cluster.sh", "start-taskmanager");
                last.join();
                awaitAllInputCommitted("the last third, across the failover");

                String metrics = scrapePrometheus();
                for (String metric : List.of("records_in", "unique", "duplicates", "late", "filter_expansions", "live_buckets",
                        "bloom_bytes", "max_fill_ratio", "estimated_fpp")) {
                    assertThat(metrics).as("Prometheus metric %s", metric).contains("flink_taskmanager_job_task_operator_" + metric + "{");
                }
                script("job.sh", "stop-with-savepoint", second);
            }

            VerificationReport report = verify(GroundTruth.read(truthFile));
            String text = report.toText(FPP);
            System.out.println(text);
            System.out.printf("cluster test took %.0f s%n", (System.nanoTime() - started) / 1e9);
            assertThat(report.input()).isEqualTo(RECORDS);
            assertThat(report.falseNegatives()).as(text).isZero();
            assertThat(report.lost()).as(text).isZero();
            assertThat(report.writtenTwice()).as(text).isZero();
            assertThat(report.misclassifiedDeadLetters()).as(text).isZero();
            assertThat(report.deadLettersInOutput()).as(text).isZero();
            assertThat(report.unidentified()).as(text).isZero();
            assertThat(report.falsePositiveRate()).as(text).isLessThanOrEqualTo(2 * FPP);
        } finally {
            // As after a failed run: the pid files are gone; stop must still find and end every process.
            deleteRecursively(runDir.resolve("pids"));
            script("cluster.sh", "stop");
            assertThat(processesOf(runDir)).as("processes left behind").isEmpty();
        }
    }

    private String submit(int parallelism, String savepoint, List<String> jobArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("submit", "--parallelism", Integer.toString(parallelism)));
        if (savepoint != null) {
            args.addAll(List.of("--from-savepoint", savepoint));
        }
        args.add("--");
        args.addAll(jobArgs);
        return script("job.sh", args.toArray(new String[0])).trim(); // returns once the job runs
    }

    private static void produce(ImpressionGenerator generator, int count, KafkaTopicDestination input, GroundTruthWriter truth)
            throws IOException {
        for (int i = 0; i < count && generator.hasNext(); i++) {
            GeneratedRecord record = generator.next();
            input.write(record);
            truth.write(record);
        }
        input.flush();
    }

    /** The rest of the stream at about 10,000 records/s, so that the TaskManager dies mid-stream. */
    private static void produceQuietly(ImpressionGenerator generator, KafkaTopicDestination input, GroundTruthWriter truth) {
        try {
            while (generator.hasNext()) {
                produce(generator, 1000, input, truth);
                Thread.sleep(100);
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private void createTopics() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("impressions", 4, (short) 1), new NewTopic("deduplicated", 4, (short) 1),
                    new NewTopic("dead-letters", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaCatchUp catchUp = new KafkaCatchUp(bootstrap, Map.of())) {
            waitUntil(Duration.ofSeconds(60), "partition leaders", () -> {
                try {
                    catchUp.endOffset("impressions");
                    return true;
                } catch (Exception notYet) {
                    return false;
                }
            });
        }
    }

    /** Records of the input topic the job has checkpointed (its group's offsets are committed on checkpoints). */
    private long committedRecords() {
        try (KafkaCatchUp catchUp = new KafkaCatchUp(bootstrap, Map.of())) {
            return catchUp.committed(GROUP, "impressions");
        } catch (Exception e) {
            return -1;
        }
    }

    private void awaitAllInputCommitted(String what) throws Exception {
        System.out.println("waiting for " + what);
        try (KafkaCatchUp catchUp = new KafkaCatchUp(bootstrap, Map.of())) {
            catchUp.await(GROUP, "impressions", List.of("deduplicated", "dead-letters"), Duration.ofSeconds(300));
        }
    }

    private String scrapePrometheus() {
        StringBuilder all = new StringBuilder();
        for (int port = 9249; port <= 9260; port++) {
            try {
                all.append(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
            } catch (Exception notThere) {
                // no reporter on this port
            }
        }
        return all.toString();
    }

    private VerificationReport verify(GroundTruth truth) {
        ObservedRecords observed = new ObservedRecords(truth.size());
        TopicReader.readAll(bootstrap, "deduplicated", Map.of(), r -> observed.output(value(r.headers().lastHeader(TestDataHeaders.SEQ))));
        TopicReader.readAll(bootstrap, "dead-letters", Map.of(), r -> observed.deadLetter(value(r.headers().lastHeader(TestDataHeaders.SEQ)),
                value(r.headers().lastHeader(TestDataHeaders.DEAD_LETTER_REASON))));
        return Verifier.verify(truth, observed);
    }

    private Admin admin() {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", bootstrap);
        return Admin.create(properties);
    }

    private String script(String name, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(REPO.resolve("deploy/local/" + name).toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(REPO.toFile());
        builder.environment().putAll(env);
        Path err = Files.createTempFile("script", ".err");
        builder.redirectError(err.toFile());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(600, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(name + " " + String.join(" ", args) + " did not finish in 600 s");
        }
        String stderr = Files.readString(err);
        Files.delete(err);
        System.out.print(stderr);
        if (process.exitValue() != 0) {
            throw new AssertionError(name + " " + String.join(" ", args) + " exited " + process.exitValue() + ":\n" + stderr);
        }
        return out;
    }

    private static List<String> processesOf(Path runDir) throws Exception {
        Process pgrep = new ProcessBuilder("pgrep", "-f", "impression.dedup.run=" + runDir).start();
        String out = new String(pgrep.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        pgrep.waitFor();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    private static void waitUntil(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(500);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static byte[] value(Header header) {
        return header == null ? null : header.value();
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (Files.exists(path)) {
            try (var walk = Files.walk(path)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
