package io.impressiondedup.local;

import static io.impressiondedup.local.StandaloneCluster.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.verify.KafkaCatchUp;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Faults on real components, each while the job is mid-stream: the Kafka broker killed and restarted
 * on its port and data, a TaskManager killed -9 while a checkpoint is in progress, and the checkpoint
 * storage refusing writes for a while. Real JVMs of the {@code deploy/local} cluster (a Kafka broker, a
 * JobManager, two TaskManagers with RocksDB), the shaded jar submitted through the REST API: what an
 * operator runs, and what can be killed as in production (a MiniCluster shares the test's JVM).
 *
 * <p>Each scenario has its own topics, consumer group and transactional ids; a third of the stream is
 * written before the job starts, the rest at a steady rate while the fault strikes. After it, once
 * the job has caught up, the read_committed output and dead-letter topics must hold every impression
 * exactly once: nothing lost, no duplicate passed, nothing written twice, no genuine impression
 * dead-lettered. The filters are sized ten times over the stream, which makes a Bloom false positive
 * practically impossible (below 1e-9 over a run), so an impression in no topic counts as lost. A
 * fingerprint bucket's FPP grows linearly with its fill, not as a power of it: about 0.9 x FPP x
 * entries / capacity a lookup. Over the TaskManager kill's run (about 49,000 unique impressions, a
 * capacity of 3M a bucket) the sum over its unique impressions is 0.36 false positives expected at the
 * default FPP of 0.001 (a run in three would see one); that run asks for an FPP of 1e-9: 4e-7.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class FaultsIT {

    static final int RECORDS = 60_000;
    /** Records per second of the stream written while the fault strikes: about a third of what the job takes. */
    static final int RATE = 5_000;
    /** Unique impressions per daily bucket the filters are sized for: ten times what a scenario holds. */
    static final String CAPACITY = "600000";

    private StandaloneCluster cluster;
    private final Map<String, String> results = new TreeMap<>();

    @BeforeAll
    void startCluster() throws Exception {
        UnwritableDirectories.releaseLeftovers(Repository.buildDirectory().resolve("faults-it"));
        cluster = StandaloneCluster.start("faults-it", 2);
    }

    @AfterAll
    void stopCluster() throws Exception {
        results.forEach((name, line) -> System.out.println("FAULT " + name + ": " + line));
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The broker dies (kill -9) mid-stream and comes back seconds later on the same port with its data.
     * Meanwhile the job's checkpoint cannot commit its transactions and the writer cannot produce; the
     * job either waits it out or restarts by its strategy, and must end with a clean account.
     */
    @Test
    @Order(1)
    void brokerKilledAndRestartedMidStreamLeavesEveryImpressionExactlyOnce() throws Exception {
        try (Scenario run = new Scenario("broker", 101)) {
            String job = run.startJob(List.of());
            CompletableFuture<Void> rest = run.writeRestInBackground();
            Thread.sleep(2_000);
            cluster.killKafka();
            run.phase("broker killed (kill -9)");
            Thread.sleep(1_000);
            cluster.startKafka();
            run.phase("broker back on its port and data");
            run.finish(job, rest, "broker killed and restarted");
        }
    }

    /**
     * A TaskManager running the job is killed (-9) while a checkpoint is in progress: half as long after
     * the JobManager triggered it as the checkpoint before took in all, and before it completed, as the
     * JobManager's log shows in real time (the REST checkpoint statistics are cached for seconds, too
     * stale to time a kill; they are read afterwards). That checkpoint must fail, never complete; the
     * job restarts from the one before in the other TaskManager's slots, and the transactions of the
     * killed one are aborted. RocksDB state of a few MB (filters sized for 3M impressions a day) and the
     * stream written meanwhile keep checkpoints at hundreds of milliseconds.
     *
     * <p>The kill can still land after the checkpoint's last acknowledgement on a loaded machine (a
     * checkpoint took 125 ms on CI). A checkpoint that then completes proves the victim had finished its
     * part before it died (a dead process acknowledges nothing), so that attempt missed the window
     * rather than found a defect: a TaskManager is started in the victim's place, the job recovers, and
     * the kill is tried again on a later checkpoint, up to {@link #KILL_ATTEMPTS} times. Every attempt's
     * outcome is printed.
     *
     * <p>Both state formats: their pages and page journals are what a restore after the kill reads. A TaskManager is
     * started in the victim's place at the end, so that the next scenario has two again.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bloom", "fingerprints"})
    @Order(2)
    void taskManagerKilledDuringACheckpointLeavesEveryImpressionExactlyOnce(String stateFormat) throws Exception {
        boolean bloom = stateFormat.equals("bloom");
        try (Scenario run = new Scenario(bloom ? "checkpoint-kill" : "checkpoint-kill-" + stateFormat, bloom ? 102 : 104)) {
            String job = run.startJob(bloom ? List.of("--capacity", "3000000")
                    : List.of("--capacity", "3000000", "--state-format", stateFormat, "--fpp", "1e-9"));
            CompletableFuture<Void> rest = run.writeRestInBackground();
            Thread.sleep(2_000); // under load: checkpoints then take hundreds of milliseconds
            JsonNode failed = null;
            long checkpoint = -1;
            String victim = null;
            try (LogFollower log = LogFollower.fromNow(cluster.jobManagerLog())) {
                for (int attempt = 1; attempt <= KILL_ATTEMPTS && failed == null; attempt++) {
                    victim = cluster.taskManagersOf(job).iterator().next();
                    Triggered triggered = killDuringACheckpoint(log, job, victim);
                    checkpoint = triggered.id();
                    run.phase("attempt " + attempt + ": killed " + victim + " (kill -9) " + triggered.killedAfter()
                            + " ms after the JobManager triggered checkpoint " + checkpoint + " (the one before took "
                            + triggered.previousDuration() + " ms)");
                    // The REST history keeps the last ten checkpoints only, so look now.
                    JsonNode stats = awaitCheckpointOutcome(job, checkpoint);
                    run.phase("checkpoint " + checkpoint + " " + stats.path("status").asText() + ": " + stats.path("failure_message").asText());
                    if (stats.path("status").asText().equals("COMPLETED")) {
                        run.phase("the kill came after " + victim + " had acknowledged checkpoint " + checkpoint + " (last ack "
                                + (stats.path("latest_ack_timestamp").asLong() - triggered.at()) + " ms after the trigger); starting"
                                + " a TaskManager in its place and trying again");
                        cluster.startTaskManager();
                        awaitAllTasksRunning(job);
                    } else {
                        failed = stats;
                    }
                }
            }
            assertThat(failed).as("a checkpoint in progress when a TaskManager was killed, in %d attempts", KILL_ATTEMPTS).isNotNull();
            assertThat(failed.path("status").asText()).as("checkpoint %d, in progress when %s was killed: %s", checkpoint, victim, failed)
                    .isEqualTo("FAILED");
            assertThat(Files.readString(cluster.jobManagerLog(), StandardCharsets.ISO_8859_1))
                    .contains("Failed to trigger or complete checkpoint " + checkpoint + " for job " + job)
                    .doesNotContain("Completed checkpoint " + checkpoint + " for job " + job);
            run.finish(job, rest, stateFormat + ": TaskManager killed during checkpoint " + checkpoint + " ("
                    + failed.path("failure_message").asText() + ")");
            assertThat(cluster.restarts(job)).as("restarts of job %s", job).isPositive();
        }
        cluster.startTaskManager();
    }

    /** Kills before giving up on catching a checkpoint in progress (each miss costs a TaskManager start, about 10 s). */
    private static final int KILL_ATTEMPTS = 4;

    /**
     * Waits for a checkpoint of the job to be triggered, sleeps half as long as the one before took,
     * and kills the victim if the JobManager's log does not show that checkpoint completed meanwhile
     * (else waits for the next one). The log is followed, not re-read, so that the kill lands within a
     * millisecond or two of that look.
     */
    private Triggered killDuringACheckpoint(LogFollower log, String job, String victim) throws Exception {
        for (int candidateNumber = 0; candidateNumber < 10; candidateNumber++) {
            Triggered candidate = awaitCheckpointInProgress(log, job, Duration.ofSeconds(60));
            Thread.sleep(candidate.previousDuration() / 2);
            boolean completed = log.newLines().stream().anyMatch(line -> line.contains("Completed checkpoint " + candidate.id() + " for job " + job));
            if (!completed) {
                long killedAt = System.currentTimeMillis();
                cluster.killTaskManager(victim);
                return new Triggered(candidate.id(), candidate.at(), candidate.previousDuration(), killedAt - candidate.at());
            }
        }
        throw new AssertionError("No checkpoint of job " + job + " was still in progress half its predecessor's duration after its trigger");
    }

    /** Waits until every task of the job runs again (after a restart onto a fresh TaskManager). */
    private void awaitAllTasksRunning(String job) throws InterruptedException {
        waitUntil(Duration.ofSeconds(120), "every task of job " + job + " to run", () -> {
            JsonNode details = cluster.restJson("/jobs/" + job);
            if (!details.path("state").asText().equals("RUNNING")) {
                return false;
            }
            for (JsonNode vertex : details.path("vertices")) {
                if (!vertex.path("status").asText().equals("RUNNING")) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * The job's checkpoint directory refuses writes for eight seconds (see {@link
     * UnwritableDirectories}), then accepts them again. Checkpoints must fail meanwhile, as the REST
     * statistics and the JobManager's log must show (the job sets no tolerable failed checkpoints, so
     * Flink's 0 applies: each failure restarts the job by its strategy); then complete again, and the
     * output be exactly once.
     */
    @Test
    @Order(3)
    void checkpointStorageUnwritableForAWhileLeavesEveryImpressionExactlyOnce() throws Exception {
        try (Scenario run = new Scenario("storage", 103)) {
            Path storage = cluster.runDir().resolve("storage-outage-checkpoints");
            String job = run.startJob(List.of("--checkpoint-dir", storage.toUri().toString()));
            Path jobDir = storage.resolve(job);
            CompletableFuture<Void> rest = run.writeRestInBackground();
            Thread.sleep(1_000);

            long blockedAt = System.currentTimeMillis();
            Map<Long, String> failed = new TreeMap<>();
            String how;
            try (UnwritableDirectories outage = UnwritableDirectories.of(jobDir, jobDir.resolve("shared"), jobDir.resolve("taskowned"))) {
                how = outage.how;
                long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
                while (System.nanoTime() < until) {
                    collectFailed(job, blockedAt, failed);
                    Thread.sleep(500);
                }
            }
            long unblockedAt = System.currentTimeMillis();
            run.phase(String.format(Locale.ROOT, "checkpoint storage %s was unwritable (%s) for %.1f s", jobDir, how, (unblockedAt - blockedAt) / 1e3));
            waitUntil(Duration.ofSeconds(90), "a checkpoint triggered after the outage to complete", () -> {
                collectFailed(job, blockedAt, failed);
                JsonNode completed = cluster.restJson("/jobs/" + job + "/checkpoints").path("latest").path("completed");
                return completed.path("trigger_timestamp").asLong() > unblockedAt;
            });
            assertThat(failed).as("checkpoints that failed while %s was unwritable (REST statistics)", jobDir).isNotEmpty();
            assertThat(Files.readString(cluster.jobManagerLog(), StandardCharsets.ISO_8859_1))
                    .as("the JobManager's log names the unwritable directory").contains(jobDir + "/");
            run.finish(job, rest, "checkpoint storage unwritable for " + (unblockedAt - blockedAt) / 1000 + " s, checkpoints failed " + failed);
        }
    }

    /** Checkpoints the REST statistics show FAILED that were triggered at or after {@code since}, with their failure message. */
    private void collectFailed(String job, long since, Map<Long, String> failed) {
        for (JsonNode checkpoint : cluster.restJson("/jobs/" + job + "/checkpoints").path("history")) {
            if (checkpoint.path("status").asText().equals("FAILED") && checkpoint.path("trigger_timestamp").asLong() >= since) {
                failed.put(checkpoint.path("id").asLong(), checkpoint.path("failure_message").asText());
            }
        }
    }

    /**
     * A checkpoint the JobManager triggered, when (epoch millis), how long the one completed before it
     * took, and how long after the trigger the victim was killed (0 before the kill).
     */
    private record Triggered(long id, long at, long previousDuration, long killedAfter) {}

    /**
     * Follows the JobManager's log until it triggers a checkpoint of the job that it has not yet
     * completed, after completing one (whose duration it logs); returns that checkpoint. Polled every
     * few milliseconds.
     */
    private static Triggered awaitCheckpointInProgress(LogFollower log, String job, Duration timeout) throws Exception {
        Pattern triggering = Pattern.compile("Triggering checkpoint (\\d+) .* @ (\\d+) for job " + job);
        Pattern completed = Pattern.compile("Completed checkpoint (\\d+) for job " + job + " \\(\\d+ bytes, checkpointDuration=(\\d+) ms");
        long deadline = System.nanoTime() + timeout.toNanos();
        Triggered inProgress = null;
        long previousDuration = 0;
        while (System.nanoTime() < deadline) {
            for (String line : log.newLines()) {
                Matcher trigger = triggering.matcher(line);
                Matcher done = completed.matcher(line);
                if (trigger.find()) {
                    inProgress = new Triggered(Long.parseLong(trigger.group(1)), Long.parseLong(trigger.group(2)), previousDuration, 0);
                } else if (done.find()) {
                    previousDuration = Long.parseLong(done.group(2));
                    if (inProgress != null && Long.parseLong(done.group(1)) == inProgress.id()) {
                        inProgress = null;
                    }
                }
            }
            if (inProgress != null && inProgress.previousDuration() > 0) {
                return inProgress;
            }
            Thread.sleep(2);
        }
        throw new AssertionError("No checkpoint of job " + job + " was triggered within " + timeout.toSeconds() + " s");
    }

    /** The REST statistics of a checkpoint once it is no longer in progress. */
    private JsonNode awaitCheckpointOutcome(String job, long checkpoint) throws InterruptedException {
        JsonNode[] outcome = new JsonNode[1];
        waitUntil(Duration.ofSeconds(60), "the outcome of checkpoint " + checkpoint, () -> {
            for (JsonNode stats : cluster.restJson("/jobs/" + job + "/checkpoints").path("history")) {
                if (stats.path("id").asLong() == checkpoint && !stats.path("status").asText().equals("IN_PROGRESS")) {
                    outcome[0] = stats;
                    return true;
                }
            }
            return false;
        });
        return outcome[0];
    }

    /** One scenario: its topics, group and transactional ids, stream, ground truth and job. */
    private final class Scenario implements AutoCloseable {
        final String name;
        final String input;
        final String output;
        final String deadLetters;
        final Path truthFile;
        final ImpressionGenerator generator;
        final GroundTruthWriter truth;
        final KafkaTopicDestination destination;
        final long started = System.nanoTime();
        boolean truthClosed;
        String job;

        Scenario(String name, long seed) throws Exception {
            this.name = name;
            this.input = name + "-impressions";
            this.output = name + "-deduplicated";
            this.deadLetters = name + "-dead-letters";
            KafkaTopics.create(cluster.bootstrapServers(), Map.of(input, 2, output, 2, deadLetters, 1), Map.of());
            phase("topics created");
            this.truthFile = cluster.runDir().resolve(name + "-truth.csv");
            this.generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(seed).span(Duration.ofDays(1)).build());
            this.truth = new GroundTruthWriter(truthFile);
            this.destination = new KafkaTopicDestination(cluster.bootstrapServers(), input, Map.of());
        }

        /**
         * Writes the first third of the stream, submits the job at parallelism 2 (checkpoints every
         * second) and returns its id once a checkpoint completed and its consumer group committed.
         */
        String startJob(List<String> extraArgs) throws Exception {
            write(RECORDS / 3);
            List<String> args = new ArrayList<>(List.of("--bootstrap-servers", cluster.bootstrapServers(), "--input-topic", input,
                    "--output-topic", output, "--dlq-topic", deadLetters, "--capacity", CAPACITY, "--checkpoint-interval", "1s",
                    "--starting-offsets", "earliest", "--group-id", name, "--transactional-id-prefix", "faults-it-" + name));
            args.addAll(extraArgs);
            phase("first third written");
            job = cluster.submit(2, args);
            phase("job " + job + " runs");
            try (KafkaCatchUp catchUp = new KafkaCatchUp(cluster.bootstrapServers(), Map.of())) {
                waitUntil(Duration.ofSeconds(60), "job " + job + " to commit a checkpoint", () -> {
                    try {
                        return catchUp.committed(name, input) > 0;
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            phase("job " + job + " committed a checkpoint");
            return job;
        }

        /** Prints what happened, with the seconds since the scenario began. */
        void phase(String what) {
            System.out.printf(Locale.ROOT, "[%s +%.1f s] %s%n", name, (System.nanoTime() - started) / 1e9, what);
        }

        /** The rest of the stream at {@link #RATE} records per second, in another thread. */
        CompletableFuture<Void> writeRestInBackground() {
            return CompletableFuture.runAsync(() -> {
                try {
                    long start = System.nanoTime();
                    long written = 0;
                    while (generator.hasNext()) {
                        write(500);
                        written += 500;
                        long due = start + written * 1_000_000_000L / RATE;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(wait / 1_000_000);
                        }
                    }
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("Writing the " + name + " stream failed", e);
                }
            });
        }

        private void write(int count) throws IOException {
            for (int i = 0; i < count && generator.hasNext(); i++) {
                GeneratedRecord record = generator.next();
                destination.write(record);
                truth.write(record);
            }
            destination.flush();
        }

        /**
         * Waits for the stream to be written and the job to catch up, then verifies the read_committed
         * topics against the ground truth and records the scenario's figures.
         */
        void finish(String job, CompletableFuture<Void> rest, String fault) throws Exception {
            rest.get();
            truth.close();
            truthClosed = true;
            phase("stream written");
            CheckpointedCatchUp.await(cluster, job, name, input, List.of(output, deadLetters), Duration.ofSeconds(180));
            phase("job caught up");
            VerificationReport report = Verifier.verifyTopics(GroundTruth.read(truthFile), cluster.bootstrapServers(), output, deadLetters);
            String text = report.toText(0.001);
            int restarts = cluster.restarts(job);
            String line = String.format(Locale.ROOT, "%s: records in %,d, lost %d (+ %d in no topic), false negatives %d, written twice %d,"
                    + " genuine dead-lettered %d, restarts %d, %.0f s", fault, report.input(), report.lost(), report.falsePositives(),
                    report.falseNegatives(), report.writtenTwice(), report.genuineDeadLettered(), restarts, (System.nanoTime() - started) / 1e9);
            results.put(name, line);
            System.out.println(text);
            System.out.println("FAULT " + name + ": " + line);
            assertThat(report.input()).isEqualTo(RECORDS);
            assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
            assertThat(report.falsePositives()).as("impressions in no topic: lost (a false positive is below 1e-9 here)\n%s", text).isZero();
        }

        @Override
        public void close() throws Exception {
            try {
                destination.close();
                if (!truthClosed) {
                    truth.close();
                }
            } finally {
                if (job != null) {
                    cluster.cancel(job);
                }
            }
        }
    }
}
