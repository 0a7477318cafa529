package io.impressiondedup.local;

import static io.impressiondedup.local.StandaloneCluster.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.RocksDbCompactionOptions;
import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.verify.KafkaCatchUp;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.verify.StatsTopicCheck;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The job on a real Flink standalone cluster, driven by the scripts users run ({@code
 * deploy/local/cluster.sh}, {@code deploy/local/job.sh}): separate JobManager and TaskManager JVMs,
 * a Kafka broker, the shaded {@code dedup-job.jar} submitted through the REST API. The cluster is the one the state
 * tools' ITs share ({@link SharedCluster}), which also checks that stopping it leaves no process behind, even with the
 * pid files gone as after a failed run.
 *
 * <p>Submit at parallelism 2 and process a first third of the stream; stop with a savepoint; add
 * the second third (with copies of impressions from the first); resume from the savepoint at
 * parallelism 3; while the last third streams in, kill -9 a TaskManager and start a new one; stop
 * with a drained savepoint. Then the verifier must find no duplicate passed, nothing lost, nothing
 * written twice, and a false-positive rate within 2x the FPP; Prometheus must expose the dedup
 * metrics; the reconciliation rows of {@code --stats-topic} must sum to the verifier's counts per
 * (partition, hour), each row written once.
 *
 * <p>On the same cluster, first: a bounded run submitted the way clusters are driven, detached
 * through {@code POST /jars/:id/run}, must be accepted, run once and finish with a balanced account
 * in the REST API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedCluster.class)
class ClusterIT {

    static final double FPP = 0.001;
    static final int RECORDS = 150_000;
    static final String GROUP = "cluster-it";

    private final ObjectMapper json = new ObjectMapper();
    private StandaloneCluster cluster;
    private Path runDir;
    private String bootstrap;

    @BeforeAll
    void useTheSharedCluster() {
        cluster = SharedCluster.cluster();
        runDir = cluster.runDir();
        bootstrap = cluster.bootstrapServers();
    }

    /**
     * The job as clusters are driven: the jar uploaded and run through the REST API, which runs {@code
     * main} detached in the JobManager. With {@code --bounded true} the submission must succeed (not
     * fail after submitting, which makes callers retry and start a second job with the same
     * transactional ids), start exactly one job, and that job must finish with its account balanced
     * in the REST API and each subtask's final share in the TaskManager logs.
     */
    @Test
    @Order(1)
    void aBoundedRunSubmittedDetachedThroughTheRestApiFinishesOnceWithABalancedAccount() throws Exception {
        long started = System.nanoTime();
        int records = 20_000;
        createTopics(Map.of("bounded-impressions", 2, "bounded-deduplicated", 2, "bounded-dead-letters", 1));
        try (KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, "bounded-impressions", Map.of())) {
            ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(records).seed(78).build());
            while (generator.hasNext()) {
                input.write(generator.next());
            }
            input.flush();
        }
        Path fingerprintSecretFile = Files.writeString(runDir.resolve("fingerprint-secret"), SECRETS.get(5) + "\n");
        String[] jobArgs = {"--bootstrap-servers", bootstrap, "--input-topic", "bounded-impressions",
            "--output-topic", "bounded-deduplicated", "--dlq-topic", "bounded-dead-letters", "--capacity", "10000",
            "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
            "--transactional-id-prefix", "cluster-it-bounded", "--bounded", "true",
            // Secrets (unused over PLAINTEXT, so the run is unaffected): none may appear in any log of the cluster.
            "--kafka.ssl.keystore.key", SECRETS.get(0), "--kafka.ssl.key.password", SECRETS.get(1),
            "--kafka.sasl.oauthbearer.assertion.private.key.passphrase", SECRETS.get(2), "--kafka.ssl.truststore.password", SECRETS.get(3),
            "--kafka.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\""
                    + SECRETS.get(4) + "\";", "--fingerprint-secret-file", fingerprintSecretFile.toString()};
        String jobName = DedupJob.jobName(DedupJobConfig.parse(jobArgs));
        // One option only in Flink's configuration (the run request's flinkConfiguration, as -D or config.yaml would
        // give it): the consumer group must be the one it names.
        String groupId = "cluster-it-group-from-flink-configuration";

        Map<Path, Long> logsBefore = taskManagerLogSizes();
        HttpResponse<String> run = cluster.rest("POST", "/jars/" + cluster.uploadJar() + "/run", json.writeValueAsString(
                Map.of("entryClass", DedupJob.class.getName(), "programArgsList", List.of(jobArgs), "parallelism", 2,
                        "flinkConfiguration", Map.of("dedup.group-id", groupId))));
        assertThat(run.statusCode()).as("POST /jars/:id/run answered %s", run.body()).isEqualTo(200);
        String jobId = json.readTree(run.body()).path("jobid").asText();
        assertThat(jobId).matches("[0-9a-f]{32}");

        try {
            waitUntil(Duration.ofSeconds(180), "job " + jobId + " to finish", () -> {
                String state = cluster.restJson("/jobs/" + jobId).path("state").asText();
                assertThat(state).as("state of job %s", jobId).isIn("INITIALIZING", "CREATED", "RUNNING", "FINISHED");
                return state.equals("FINISHED");
            });
        } finally {
            if (!cluster.restJson("/jobs/" + jobId).path("state").asText().equals("FINISHED")) {
                cluster.rest("PATCH", "/jobs/" + jobId + "?mode=cancel", null); // free the slots for the next test
            }
        }
        List<String> sameName = new ArrayList<>();
        cluster.restJson("/jobs/overview").path("jobs").forEach(job -> {
            if (job.path("name").asText().equals(jobName)) {
                sameName.add(job.path("jid").asText());
            }
        });
        assertThat(sameName).as("jobs named '%s'", jobName).containsExactly(jobId);

        Map<String, String> accumulators = new HashMap<>();
        cluster.restJson("/jobs/" + jobId + "/accumulators").path("user-task-accumulators")
                .forEach(a -> accumulators.put(a.path("name").asText(), a.path("value").asText()));
        String summary = Accounting.summary(accumulators);
        System.out.println("bounded run, from REST: " + summary);
        long input = Accounting.count(accumulators, Accounting.INPUT);
        long unique = Accounting.count(accumulators, DedupOperator.ACCUMULATOR_UNIQUE);
        long duplicates = Accounting.count(accumulators, DedupOperator.ACCUMULATOR_DUPLICATES);
        long late = Accounting.count(accumulators, DedupOperator.ACCUMULATOR_LATE);
        long deadLettered = Accounting.count(accumulators, Accounting.DEAD_LETTERED);
        assertThat(input).as(summary).isEqualTo(records);
        assertThat(unique + duplicates + late + deadLettered).as(summary).isEqualTo(input);
        assertThat(duplicates).as(summary).isPositive();
        assertThat(deadLettered).as(summary).isPositive();
        assertThat(summary).endsWith("(balanced)");

        // Where the detached submission said the account would be: the REST API (above), and the logs.
        String jobManagerLog = Files.readString(runDir.resolve("logs/jobmanager.log"));
        assertThat(jobManagerLog).contains("Submitted job " + jobId).contains("/jobs/" + jobId + "/accumulators")
                .contains("group-id = " + groupId);
        // The Kafka source took the group from there (its enumerator names the group it consumes as).
        assertThat(jobManagerLog).contains("KafkaSourceEnumerator for consumer group " + groupId);
        // No other job runs on the shared cluster meanwhile, so every account line logged since the submission is this job's.
        long[] lastShares = lastLoggedShares(logsBefore);
        assertThat(lastShares).as("sums of the subtasks' last logged shares: input, unique, duplicates, late")
                .containsExactly(input, unique, duplicates, late);
        assertNoSecretInTheLogs();
        System.out.printf("bounded detached run took %.0f s%n", (System.nanoTime() - started) / 1e9);
    }

    @Test
    @Order(2)
    void savepointRescaleAndFailoverKeepEveryImpressionExactlyOnce() throws Exception {
        long started = System.nanoTime();
        createTopics(Map.of("impressions", 4, "deduplicated", 4, "dead-letters", 1, "stats", 2));
        Path truthFile = runDir.resolve("truth.csv");
        // 1% of requests from delayed clients, 1-20 h late: their hours get amendment rows in the stats topic.
        GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(77).span(Duration.ofDays(4)).delayedShare(0.01).build();
        ImpressionGenerator generator = new ImpressionGenerator(settings);
        List<String> jobArgs = List.of("--bootstrap-servers", bootstrap, "--input-topic", "impressions",
                "--output-topic", "deduplicated", "--dlq-topic", "dead-letters", "--capacity", "45000",
                "--fpp", Double.toString(FPP), "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
                "--group-id", GROUP, "--transactional-id-prefix", "cluster-it", "--stats-topic", "stats");
        String drained;

        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, "impressions", Map.of())) {
            produce(generator, RECORDS / 3, input, truth);
            String first = cluster.submit(2, jobArgs);
            awaitCaughtUp(first, "the first third at parallelism 2");
            assertTheDedupStateRunsWithTheJobsRocksDbOptions(first);
            assertThePageTierHasThreeQuartersOfEachSlotsManagedMemory();
            String savepoint = cluster.script("job.sh", "stop-with-savepoint", first).trim();

            produce(generator, RECORDS / 3, input, truth); // holds copies of impressions of the first third
            String second = cluster.submit(3, savepoint, jobArgs);
            awaitCaughtUp(second, "the second third at parallelism 3 from the savepoint");

            Thread last = new Thread(() -> produceQuietly(generator, input, truth));
            last.start();
            waitUntil(Duration.ofSeconds(120), "progress on the last third", () -> committedRecords() > 2L * RECORDS / 3 + 2000);
            cluster.script("cluster.sh", "kill-taskmanager", "0");
            cluster.script("cluster.sh", "start-taskmanager");
            last.join();
            awaitCaughtUp(second, "the last third, across the failover");

            String metrics = ofJob(cluster.scrapePrometheus(), second);
            for (String metric : List.of("records_in", "unique", "duplicates", "late", "filter_expansions", "live_buckets",
                    "bloom_bytes", "max_fill_ratio", "estimated_fpp")) {
                assertThat(metrics).as("Prometheus metric %s", metric).contains("flink_taskmanager_job_task_operator_" + metric + "{");
            }
            assertDeadLettersByReasonMatchTheAccount(metrics);
            assertTheObservabilityPackUsesOnlyExportedMetrics(second);
            // Drained: event time ends, so every hour's rows are written before the final savepoint commits them.
            drained = cluster.script("job.sh", "stop-with-savepoint", second, "--drain").trim();
        }

        VerificationReport report = verify(GroundTruth.read(truthFile));
        String text = report.toText(FPP);
        System.out.println(text);
        System.out.printf("cluster test took %.0f s%n", (System.nanoTime() - started) / 1e9);
        assertThat(report.input()).isEqualTo(RECORDS);
        assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(truthFile, jobArgs))).as(text).isEmpty();
        assertTheStatsRowsSumToTheVerifiersCounts(truthFile);
        assertAStatsSavepointRestoresWithoutStatsOnlyWhenAllowed(drained, jobArgs);
    }

    /**
     * The cluster's configuration sets no RocksDB option (deploy/conf/config.yaml): the dedup operator's
     * RocksDB runs with what the job sets itself (RocksDbDefaults: bloom filters, and RocksDbCompactionOptions' level-0
     * trigger through the options factory the job names, loaded on the TaskManager from the job's jar), as read back from
     * the OPTIONS file RocksDB writes in each of the running job's instance directories.
     */
    private void assertTheDedupStateRunsWithTheJobsRocksDbOptions(String jobId) throws IOException {
        Collection<Path> optionFiles; // the newest of each instance: RocksDB writes one more as column families are created
        try (Stream<Path> files = Files.walk(runDir.resolve("tmp"))) {
            optionFiles = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-")
                            && f.getParent().getParent().getFileName().toString().startsWith("job_" + jobId + "_op_DedupOperator"))
                    .collect(Collectors.toMap(Path::getParent, f -> f, (a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()) > 0 ? a : b))
                    .values();
        }
        assertThat(optionFiles).as("RocksDB OPTIONS files of job %s's dedup operator", jobId).hasSize(2);
        for (Path file : optionFiles) {
            String options = Files.readString(file);
            assertThat(options).as(file.toString()).contains("[CFOptions \"bloom-page-groups\"]");
            String pages = options.substring(options.indexOf("[CFOptions \"bloom-page-groups\"]"));
            assertThat(pages).as(file.toString()).contains("filter_policy=bloomfilter")
                    .contains("level0_file_num_compaction_trigger=" + RocksDbCompactionOptions.LEVEL0_FILES_TO_COMPACT);
        }
    }

    /**
     * The cluster's configuration (deploy/conf/config.yaml) gives the dedup operator's off-heap page tier three quarters of each
     * slot's managed memory and RocksDB a quarter ({@code taskmanager.memory.managed.consumer-weights}), which only a
     * TaskManager's configuration can set: every dedup subtask logs a tier of exactly that many bytes.
     */
    private void assertThePageTierHasThreeQuartersOfEachSlotsManagedMemory() throws IOException {
        Configuration conf = GlobalConfiguration.loadConfiguration(runDir.resolve("conf").toString());
        long slotBytes = conf.get(TaskManagerOptions.MANAGED_MEMORY_SIZE).getBytes() / conf.get(TaskManagerOptions.NUM_TASK_SLOTS);
        List<Long> tiers = new ArrayList<>();
        try (var logs = Files.newDirectoryStream(runDir.resolve("logs"), "taskmanager-*.log")) {
            for (Path log : logs) {
                Matcher tier = PAGE_TIER.matcher(Files.readString(log));
                while (tier.find()) {
                    tiers.add(Long.parseLong(tier.group(1)));
                }
            }
        }
        assertThat(tiers).as("the off-heap tier of each dedup subtask, of %s bytes of managed memory a slot", slotBytes)
                .isNotEmpty().containsOnly(slotBytes / 4 * 3);
    }

    private static final Pattern PAGE_TIER = Pattern.compile("an off-heap tier of (\\d+) bytes of managed memory");

    static final int BACKFILL = 90_000;

    /**
     * A bounded backfill with delayed clients and the reconciliation rows, stopped with {@code --drain} at about a third of
     * its input and resumed from that savepoint at another parallelism: the resumed job finishes by itself, and nothing
     * is lost, doubled or dead-lettered that should not be; the rows sum to the verifier's counts.
     */
    @Test
    @Order(3)
    void aBackfillStoppedWithDrainResumesAtAnotherParallelismAndFinishesExactlyOnce() throws Exception {
        stopAndResumeABackfill("drained", true);
    }

    /** The same with a plain stop-with-savepoint. */
    @Test
    @Order(4)
    void aBackfillStoppedWithASavepointResumesAtAnotherParallelismAndFinishesExactlyOnce() throws Exception {
        stopAndResumeABackfill("stopped", false);
    }

    private void stopAndResumeABackfill(String name, boolean drain) throws Exception {
        long started = System.nanoTime();
        String in = name + "-impressions";
        String out = name + "-deduplicated";
        String deadLetters = name + "-dead-letters";
        String stats = name + "-stats";
        createTopics(Map.of(in, 4, out, 4, deadLetters, 1, stats, 2));
        Path truthFile = runDir.resolve(name + "-truth.csv");
        GeneratorSettings settings = GeneratorSettings.builder().count(BACKFILL).seed(drain ? 91 : 92).span(Duration.ofDays(4))
                .delayedShare(0.01).build();
        ImpressionGenerator generator = new ImpressionGenerator(settings);
        List<String> jobArgs = List.of("--bootstrap-servers", bootstrap, "--input-topic", in, "--output-topic", out,
                "--dlq-topic", deadLetters, "--capacity", "45000", "--fpp", Double.toString(FPP), "--checkpoint-interval", "2s",
                "--starting-offsets", "earliest", "--group-id", name, "--transactional-id-prefix", "cluster-it-" + name,
                "--stats-topic", stats, "--bounded", "true");

        String savepoint;
        // The first third committed, the rest in a transaction left open: the first run's end offsets lie past it, but
        // its read_committed readers stop before it, so the stop lands after the first third whatever the machine's speed.
        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, in, Map.of(
                        "transactional.id", "cluster-it-" + name + "-input", "transaction.timeout.ms", "600000"))) {
            input.beginTransaction();
            produce(generator, BACKFILL / 3, input, truth);
            input.commitTransaction();
            input.beginTransaction();
            produce(generator, BACKFILL - BACKFILL / 3, input, truth);

            String first = cluster.submit(2, jobArgs);
            CheckpointedCatchUp.await(cluster, first, name, in, BACKFILL / 3, List.of(), Duration.ofSeconds(240));
            savepoint = drain ? cluster.script("job.sh", "stop-with-savepoint", first, "--drain").trim()
                    : cluster.script("job.sh", "stop-with-savepoint", first).trim();
            input.commitTransaction();
        }
        long atStop = committed(name, in);
        System.out.printf("%s: stopped at %d of %d records%n", name, atStop, BACKFILL);
        assertThat(atStop).as("records read before the stop").isLessThan(BACKFILL);

        String second = cluster.submit(3, savepoint, jobArgs);
        waitUntil(Duration.ofSeconds(300), "the resumed backfill to finish by itself", () -> {
            String state = cluster.restJson("/jobs/" + second).path("state").asText();
            assertThat(state).as("state of the resumed job %s", second).isIn("INITIALIZING", "CREATED", "RUNNING", "FINISHED");
            return state.equals("FINISHED");
        });

        VerificationReport report = Verifier.verifyTopics(GroundTruth.read(truthFile), bootstrap, out, deadLetters);
        String text = report.toText(FPP);
        System.out.println(text);
        assertThat(report.input()).isEqualTo(BACKFILL);
        assertThat(report.falseNegatives()).as(text).isZero();
        assertThat(report.genuineDeadLettered()).as(text).isZero();
        assertThat(report.lost()).as(text).isZero();
        assertThat(report.writtenTwice()).as(text).isZero();
        assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(truthFile, jobArgs))).as(text).isEmpty();
        StatsTopicCheck check = StatsTopicCheck.run(truthFile, bootstrap, in, out, deadLetters, stats);
        System.out.println(name + " stats topic: " + check.summary());
        assertThat(check.problems()).as("broken promises of the stats rows").isEmpty();
        System.out.printf("%s backfill took %.0f s%n", name, (System.nanoTime() - started) / 1e9);
    }

    /** Records of {@code topic} the consumer group {@code group} has checkpointed. */
    private long committed(String group, String topic) {
        try (KafkaCatchUp catchUp = new KafkaCatchUp(bootstrap, Map.of())) {
            return catchUp.committed(group, topic);
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * A savepoint taken with {@code --stats-topic} holds the stats operators' state, which a job without the option has
     * no operator for: the restore is refused (Flink names the unmapped state) unless that state is skipped, with
     * {@code job.sh submit --allow-non-restored-state} (Flink's {@code allowNonRestoredState}), as
     * {@code docs/RECONCILIATION.md} says. The job then runs on the dedup state alone.
     */
    private void assertAStatsSavepointRestoresWithoutStatsOnlyWhenAllowed(String savepoint, List<String> jobArgs) throws Exception {
        List<String> withoutStats = new ArrayList<>(jobArgs);
        int stats = withoutStats.indexOf("--stats-topic");
        withoutStats.subList(stats, stats + 2).clear();
        List<String> refused = new ArrayList<>(List.of("submit", "--parallelism", "2", "--from-savepoint", savepoint, "--"));
        refused.addAll(withoutStats);
        assertThatThrownBy(() -> cluster.script("job.sh", refused.toArray(new String[0])))
                .hasMessageContaining("Cannot map checkpoint/savepoint state for operator");
        List<String> allowed = new ArrayList<>(List.of("submit", "--parallelism", "2", "--from-savepoint", savepoint,
                "--allow-non-restored-state", "--"));
        allowed.addAll(withoutStats);
        String job = cluster.script("job.sh", allowed.toArray(new String[0])).trim();
        assertThat(cluster.restJson("/jobs/" + job).path("state").asText()).isEqualTo("RUNNING");
        cluster.cancel(job);
    }

    /**
     * The stats topic, read committed, across a savepoint, a rescale 2 -> 3 and a TaskManager killed: summed per
     * (partition, hour) its rows equal the counts the verifier derives from the ground truth and the topics; each
     * row is written once, each (partition, hour) has at most one complete row, and delayed impressions made
     * amendment rows.
     */
    private void assertTheStatsRowsSumToTheVerifiersCounts(Path truthFile) throws Exception {
        long started = System.nanoTime();
        StatsTopicCheck check = StatsTopicCheck.run(truthFile, bootstrap, "impressions", "deduplicated", "dead-letters", "stats");
        System.out.printf("stats topic: %s; checked in %.1f s%n", check.summary(), (System.nanoTime() - started) / 1e9);
        assertThat(check.problems()).as("broken promises of the stats rows").isEmpty();
        assertThat(check.amendmentRows()).as("amendment rows (delayed impressions arrive 1-20 h after their hour closed)").isGreaterThan(10);
    }

    /** Writes the generator's next {@code count} records to the input topic and to the ground truth. */
    static void produce(ImpressionGenerator generator, int count, KafkaTopicDestination input, GroundTruthWriter truth)
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

    /** Creates topics (name to partitions) and waits until they have leaders. */
    private void createTopics(Map<String, Integer> partitions) throws Exception {
        KafkaTopics.create(bootstrap, partitions, Map.of());
    }

    /** Records of the input topic the job has checkpointed (its group's offsets are committed on checkpoints). */
    private long committedRecords() {
        try (KafkaCatchUp catchUp = new KafkaCatchUp(bootstrap, Map.of())) {
            return catchUp.committed(GROUP, "impressions");
        } catch (Exception e) {
            return -1;
        }
    }

    private void awaitCaughtUp(String job, String what) throws Exception {
        System.out.println("waiting for " + what);
        CheckpointedCatchUp.await(cluster, job, GROUP, "impressions", List.of("deduplicated", "dead-letters"), Duration.ofSeconds(300));
    }

    /** Values of the secret Kafka options the detached run is given, and of its fingerprint secret (in a file). */
    private static final List<String> SECRETS = List.of("pem-secret-7f3a", "key-password-secret-91c2", "oauth-passphrase-secret-4d0e",
            "truststore-secret-b83f", "jaas-password-secret-e61d", "fingerprint-secret-0c5d9a7e3b41");

    /** Every log the cluster wrote (JobManager, TaskManagers, their .out files), scanned for the secrets' values. */
    private void assertNoSecretInTheLogs() throws IOException {
        List<String> leaks = new ArrayList<>();
        try (var logs = Files.newDirectoryStream(runDir.resolve("logs"))) {
            for (Path log : logs) {
                String text = Files.readString(log, StandardCharsets.ISO_8859_1);
                for (String secret : SECRETS) {
                    if (text.contains(secret)) {
                        leaks.add(secret + " in " + log.getFileName());
                    }
                }
            }
        }
        assertThat(leaks).as("secret option values written to the cluster's logs").isEmpty();
    }

    private static final Pattern PARSE_SHARE = Pattern.compile("Checkpoint (\\d+), parse subtask (\\d+): input (\\d+) ");
    private static final Pattern DEDUP_SHARE =
            Pattern.compile("Checkpoint (\\d+), dedup subtask (\\d+): records-in \\d+ = unique (\\d+) \\+ duplicates (\\d+) \\+ late (\\d+)");

    /** The length of each TaskManager log now, so that only what a job logs afterwards is read. */
    private Map<Path, Long> taskManagerLogSizes() throws IOException {
        Map<Path, Long> sizes = new HashMap<>();
        try (var logs = Files.newDirectoryStream(runDir.resolve("logs"), "taskmanager-*.log")) {
            for (Path log : logs) {
                sizes.put(log, Files.size(log));
            }
        }
        return sizes;
    }

    /**
     * The account as the TaskManager logs have it since {@code before} ({@link #taskManagerLogSizes}): each parse and
     * dedup subtask logs its share at every completed checkpoint; summed over subtasks, the share each logged at its
     * last checkpoint: {input, unique, duplicates, late}.
     */
    private long[] lastLoggedShares(Map<Path, Long> before) throws IOException {
        Map<String, long[]> last = new HashMap<>(); // "parse 0" -> {checkpoint, counts...}
        try (var logs = Files.newDirectoryStream(runDir.resolve("logs"), "taskmanager-*.log")) {
            for (Path log : logs) {
                byte[] bytes = Files.readAllBytes(log);
                int from = Math.toIntExact(before.getOrDefault(log, 0L));
                for (String line : new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8).split("\n")) {
                    Matcher parse = PARSE_SHARE.matcher(line);
                    Matcher dedup = DEDUP_SHARE.matcher(line);
                    if (parse.find()) {
                        keepLatest(last, "parse " + parse.group(2), Long.parseLong(parse.group(1)), Long.parseLong(parse.group(3)));
                    } else if (dedup.find()) {
                        keepLatest(last, "dedup " + dedup.group(2), Long.parseLong(dedup.group(1)), Long.parseLong(dedup.group(3)),
                                Long.parseLong(dedup.group(4)), Long.parseLong(dedup.group(5)));
                    }
                }
            }
        }
        long[] sums = new long[4];
        last.forEach((subtask, share) -> {
            if (subtask.startsWith("parse")) {
                sums[0] += share[1];
            } else {
                for (int i = 1; i < 4; i++) {
                    sums[i] += share[i];
                }
            }
        });
        return sums;
    }

    private static void keepLatest(Map<String, long[]> last, String subtask, long checkpoint, long... counts) {
        long[] share = new long[counts.length + 1];
        share[0] = checkpoint;
        System.arraycopy(counts, 0, share, 1, counts.length);
        last.merge(subtask, share, (a, b) -> a[0] >= b[0] ? a : b);
    }

    /**
     * The labelled counter {@code dead-letters} by {@code reason} against the account's counters in the same scrape
     * (all input committed, so nothing in flight): the router's reasons sum to its {@code dead-lettered}, {@code
     * late} equals the dedup operator's {@code late} (the default late policy dead-letters every late miss).
     */
    private static void assertDeadLettersByReasonMatchTheAccount(String metrics) {
        Map<String, Long> byReason = new HashMap<>();
        Matcher m = DEAD_LETTERS_BY_REASON.matcher(metrics);
        while (m.find()) {
            byReason.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        long routed = byReason.entrySet().stream().filter(e -> !e.getKey().equals("late")).mapToLong(Map.Entry::getValue).sum();
        String account = "dead letters by reason " + byReason;
        assertThat(byReason.keySet()).as(account).contains("malformed", "oversized", "future_timestamp", "late"); // the reporter writes - in label values as _
        assertThat(routed).as(account).isPositive().isEqualTo(sum(metrics, "flink_taskmanager_job_task_operator_dead_lettered"));
        assertThat(byReason.get("late")).as(account).isEqualTo(sum(metrics, "flink_taskmanager_job_task_operator_late"));
    }

    private static final Pattern DEAD_LETTERS_BY_REASON =
            Pattern.compile("(?m)^flink_taskmanager_job_task_operator_reason_dead_letters\\{[^}]*\\breason=\"([^\"]+)\"[^}]*} (\\S+)$");

    /** The sum of the series {@code name} (every subtask) in a scrape. */
    private static long sum(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{[^}]*} (\\S+)$").matcher(metrics);
        long sum = 0;
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }

    /**
     * Every Flink metric the Grafana dashboard and the alert rules of {@code deploy/observability/} name must be exported
     * by this running job, TaskManagers' and JobManager's reporters alike (the JobManager's checkpoint metrics appear once
     * the job has checkpointed), and every label value they select by must occur (the reporter rewrites label values:
     * {@code operator_name="Deduplicate_impressions"}), or a panel stays empty and an alert never fires.
     */
    private void assertTheObservabilityPackUsesOnlyExportedMetrics(String jobId) throws Exception {
        String[] scrape = new String[1];
        waitUntil(Duration.ofSeconds(30), "the JobManager's job metrics on its Prometheus reporter", () -> {
            scrape[0] = ofJob(cluster.scrapePrometheus(), jobId);
            return scrape[0].contains("flink_jobmanager_job_lastCheckpointDuration{");
        });
        java.util.Set<String> exported = ObservabilityPack.exportedNames(scrape[0]);
        Path scrapeFile = Repository.buildDirectory().resolve("cluster-it-prometheus.txt");
        Files.writeString(scrapeFile, scrape[0]);
        Map<String, java.util.Set<String>> used = ObservabilityPack.metricNames();
        used.keySet().removeIf(ObservabilityPack::readsSchemaRegistry); // SchemaRegistryClusterIT checks those
        Map<String, java.util.Set<String>> missing = new java.util.TreeMap<>(used);
        missing.keySet().removeAll(exported);
        assertThat(used).as("Flink metrics named in deploy/observability").isNotEmpty();
        assertThat(missing).as("metrics deploy/observability names that the running job does not export (see %s)", scrapeFile)
                .isEmpty();
        List<ObservabilityPack.LabelMatcher> matchers = new ArrayList<>(ObservabilityPack.labelMatchers());
        matchers.removeIf(matcher -> ObservabilityPack.readsSchemaRegistry(matcher.metric()));
        assertThat(matchers).as("label matchers in deploy/observability").isNotEmpty();
        assertThat(matchers).as("label matchers of deploy/observability that select no series of the running job (see %s)",
                scrapeFile).allMatch(matcher -> ObservabilityPack.selectsSomeSeries(matcher, scrape[0]));
    }

    /**
     * The series of one job ({@code job_id} label): the ports 9249-9260 are shared by every Flink JVM on the machine,
     * another cluster's (a parallel build's) included.
     */
    static String ofJob(String scrape, String jobId) {
        StringBuilder lines = new StringBuilder();
        for (String line : scrape.split("\n")) {
            if (line.contains("job_id=\"" + jobId + "\"")) {
                lines.append(line).append('\n');
            }
        }
        return lines.toString();
    }

    private VerificationReport verify(GroundTruth truth) {
        return Verifier.verifyTopics(truth, bootstrap, "deduplicated", "dead-letters");
    }
}
