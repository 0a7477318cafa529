package io.impressiondedup.local;

import static io.impressiondedup.local.StandaloneCluster.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.TestDataHeaders;
import io.impressiondedup.testdata.verify.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code dedup-tools inspect} (Flink 2.3, its own JVM) on savepoints of a real run of the job on the 2.2.1
 * standalone cluster, one per state backend: the job deduplicates a disordered stream (copies re-sent with
 * older and newer timestamps, delayed clients hours late but in time, records late enough to be
 * dead-lettered), a savepoint is taken without cancelling once every input record is accounted for, and the
 * job's dedup gauges are read through REST while no input flows. Then:
 *
 * <ul>
 *   <li>the totals of {@code inspect --json} equal the gauges (sum of live-buckets and bloom-bytes over the
 *       subtasks, max of max-fill-ratio and estimated-fpp);
 *   <li>for 10,000 sampled records, the query verdict is what the operator decided: an impression that passed
 *       is a DUPLICATE found in the bucket of its event time; one only dead-lettered as late is LATE (or NEW, as
 *       the saved watermark says); a never-seen id is NEW but for false positives within the FPP bound.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedCluster.class)
class InspectIT {

    static final int RECORDS = 24_000;
    static final String INPUT = "inspect-impressions";
    static final double FPP = 0.001;
    static final int SAMPLES = 10_000;
    /** Default buckets: 1 day, retention 2 days, allowed lateness 1 day, UTC (the job runs with its defaults). */
    static final TimeBuckets BUCKETS = TimeBuckets.defaults();

    private final ObjectMapper json = new ObjectMapper();
    private StandaloneCluster cluster;
    private String bootstrap;
    private List<GeneratedRecord> records;

    @BeforeAll
    void startClusterAndWriteTheInput() throws Exception {
        cluster = SharedCluster.cluster();
        bootstrap = cluster.bootstrapServers();
        KafkaTopics.create(bootstrap, Map.of(INPUT, 2, "out-rocksdb", 2, "dlq-rocksdb", 1, "out-hashmap", 2, "dlq-hashmap", 1),
                Map.of());
        // Two days of traffic: copies within and beyond the retention, 3% from delayed clients (1 to 20 h behind, in time),
        // 1% late enough to be dead-lettered; capacity below a bucket's traffic, so filters grow a layer.
        GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(1717).span(Duration.ofDays(2))
                .duplicateShare(0.25).lateShare(0.01).delayedShare(0.03).build();
        records = new ArrayList<>();
        ImpressionGenerator generator = new ImpressionGenerator(settings);
        try (KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, INPUT, Map.of())) {
            while (generator.hasNext()) {
                GeneratedRecord record = generator.next();
                assertThat(record.seq).isEqualTo(records.size());
                records.add(record);
                input.write(record);
            }
            input.flush();
        }
    }

    @Test
    void inspectOfARocksDbSavepointShowsTheGaugesAndDecidesAsTheOperatorDid() throws Exception {
        inspectTheSavepointOfARunOn("rocksdb");
    }

    @Test
    void inspectOfAHashMapSavepointShowsTheGaugesAndDecidesAsTheOperatorDid() throws Exception {
        inspectTheSavepointOfARunOn("hashmap");
    }

    private void inspectTheSavepointOfARunOn(String backend) throws Exception {
        long started = System.nanoTime();
        String output = "out-" + backend;
        String deadLetters = "dlq-" + backend;
        String group = "inspect-it-" + backend;
        String jobId = cluster.submit(2, List.of("--bootstrap-servers", bootstrap, "--input-topic", INPUT,
                "--output-topic", output, "--dlq-topic", deadLetters, "--capacity", "6000", "--fpp", Double.toString(FPP),
                "--checkpoint-interval", "2s", "--starting-offsets", "earliest", "--group-id", group,
                "--transactional-id-prefix", group, "--state-backend", backend));
        String savepoint;
        Map<String, Double> gauges;
        JsonNode statistics;
        try {
            CheckpointedCatchUp.await(cluster, jobId, group, INPUT, List.of(output, deadLetters), Duration.ofSeconds(180));
            savepoint = triggerSavepoint(jobId, cluster.runDir().resolve("savepoints-" + backend));
            // The statistics in a JVM of their own while the gauges settle: both describe the state as of the savepoint's
            // barrier (no input flows, so the gauges stay as they were there).
            String completed = savepoint;
            CompletableFuture<JsonNode> inspected = CompletableFuture.supplyAsync(() -> inspectUnchecked(backend, "--savepoint",
                    completed, "--json", "--state-backend", backend, "--parallelism", "2"));
            gauges = settledDedupGauges(jobId);
            statistics = inspected.join();
        } finally {
            cluster.cancel(jobId);
        }

        JsonNode totals = statistics.get("totals");
        System.out.printf("%s: inspect totals %s, gauges %s%n", backend, totals, gauges);
        assertThat(totals.get("liveBuckets").asDouble()).as("live-buckets").isEqualTo(gauges.get("live-buckets sum"));
        assertThat(totals.get("bloomBytes").asDouble()).as("bloom-bytes").isEqualTo(gauges.get("bloom-bytes sum"));
        assertThat(totals.get("maxFillRatio").asDouble()).as("max-fill-ratio").isEqualTo(gauges.get("max-fill-ratio max"));
        assertThat(totals.get("estimatedFpp").asDouble()).as("estimated-fpp").isEqualTo(gauges.get("estimated-fpp max"));
        assertThat(totals.get("liveBuckets").asInt()).isGreaterThan(128);
        int maxLayers = 0;
        for (JsonNode bucket : statistics.get("buckets")) {
            maxLayers = Math.max(maxLayers, bucket.get("maxLayers").asInt());
            assertThat(bucket.get("bitsSet").asLong()).isPositive().isLessThan(bucket.get("bitsTotal").asLong());
        }
        assertThat(maxLayers).as("some filter over its planned capacity grew a layer").isGreaterThan(1);
        long watermark = statistics.get("facts").get("latenessWatermark").asLong();
        assertThat(statistics.get("facts").get("dedupKey").asText()).as("the key the job recorded").isEqualTo("/requestId;/adId");
        assertThat(statistics.get("facts").get("timeOptions").asText()).as("the time options the job recorded")
                .isEqualTo(io.impressiondedup.state.time.TimeBuckets.defaults().description().replace("zone=Z", "zone=UTC"));
        assertThat(statistics.get("facts").get("lateBefore").isNumber()).as("the event time before which records are late, recorded").isTrue();

        Decisions decisions = decisionsOf(output, deadLetters);
        List<Expected> sample = sample(decisions, watermark);
        Path queries = cluster.runDir().resolve("queries-" + backend + ".csv");
        List<String> lines = new ArrayList<>(List.of("requestId,adId,eventTime"));
        for (Expected expected : sample) {
            lines.add(csv(expected.requestId) + "," + csv(expected.adId) + "," + expected.eventTime);
        }
        Files.write(queries, lines, StandardCharsets.UTF_8);
        JsonNode answers = inspect(backend, "--savepoint", savepoint, "--json", "--state-backend", backend, "--parallelism", "2",
                "--query-file", queries.toString()).get("queries");

        assertThat(answers).hasSize(sample.size());
        Map<String, Integer> counts = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        int falsePositives = 0;
        for (int i = 0; i < sample.size(); i++) {
            Expected expected = sample.get(i);
            JsonNode answer = answers.get(i);
            assertThat(answer.get("requestId").asText()).isEqualTo(expected.requestId);
            String verdict = answer.get("verdict").asText() + (answer.has("bucket") ? " " + answer.get("bucket").asLong() : "");
            counts.merge(expected.kind + " -> " + answer.get("verdict").asText(), 1, Integer::sum);
            if (verdict.equals(expected.verdict)) {
                continue;
            }
            if (answer.get("verdict").asText().equals("DUPLICATE")) {
                // A Bloom false positive: another filter of the range (or the same one, for a negative) holds the probe bits,
                // set by later inserts; the job restored from the savepoint would drop this record too.
                falsePositives++;
            } else {
                wrong.add(expected + " answered " + verdict);
            }
        }
        System.out.printf("%s: %d queries %s; %d false positives; took %.0f s%n", backend, sample.size(), counts, falsePositives,
                (System.nanoTime() - started) / 1e9);
        assertThat(sample).hasSize(SAMPLES);
        assertThat(counts.keySet()).contains("passed -> DUPLICATE", "late-only -> LATE", "never-seen -> NEW");
        assertThat(wrong).as("verdicts that differ from the operator's decision").isEmpty();
        // Each query is checked against up to 5 filters of FPP about FPP/5 each: at most about FPP per query; 3x slack.
        assertThat(falsePositives).isLessThanOrEqualTo((int) Math.ceil(3 * FPP * sample.size()));
    }

    /** What the operator did with each record: passed (in the output) or dead-lettered as late; by sequence number. */
    private record Decisions(Set<Integer> passed, Set<Integer> lateLettered) {}

    private Decisions decisionsOf(String output, String deadLetters) {
        Set<Integer> passed = new HashSet<>();
        Set<Integer> late = new HashSet<>();
        TopicReader.readAll(bootstrap, output, Map.of(), record -> passed.add(seq(record.headers().lastHeader(TestDataHeaders.SEQ).value())));
        TopicReader.readAll(bootstrap, deadLetters, Map.of(), record -> {
            byte[] reason = TopicReader.lastHeader(record, TestDataHeaders.DEAD_LETTER_REASON);
            byte[] seq = TopicReader.lastHeader(record, TestDataHeaders.SEQ);
            if (seq != null && reason != null && new String(reason, StandardCharsets.UTF_8).equals("late")) {
                late.add(seq(seq));
            }
        });
        return new Decisions(passed, late);
    }

    private static int seq(byte[] header) {
        return Integer.parseInt(new String(header, StandardCharsets.US_ASCII));
    }

    /** A query and the verdict the operator's decision implies. */
    private record Expected(String kind, String requestId, String adId, long eventTime, String verdict) {}

    /**
     * Up to 7,000 records that passed (each expected DUPLICATE in its own bucket, or LATE if that bucket is no longer
     * live and the record is late at the saved watermark), every record dead-lettered as late whose (request, ad)
     * never passed (LATE or NEW as the saved watermark says), and never-seen ids at the newest event time (NEW).
     */
    private List<Expected> sample(Decisions decisions, long watermark) {
        Random random = new Random(42);
        Set<String> passedIdentities = new HashSet<>();
        for (int seq : decisions.passed()) {
            passedIdentities.add(records.get(seq).requestId + "\u0000" + records.get(seq).adId);
        }
        List<Integer> passed = new ArrayList<>(decisions.passed());
        Collections.sort(passed);
        Collections.shuffle(passed, random);
        List<Expected> sample = new ArrayList<>();
        for (int seq : passed.subList(0, Math.min(7_000, passed.size()))) {
            GeneratedRecord r = records.get(seq);
            long bucket = BUCKETS.bucketOf(r.eventTime);
            boolean gone = BUCKETS.isLate(r.eventTime, watermark) && !BUCKETS.isLive(bucket, watermark);
            sample.add(new Expected("passed", r.requestId, r.adId, r.eventTime, gone ? "LATE" : "DUPLICATE " + bucket));
        }
        long newest = Long.MIN_VALUE;
        for (GeneratedRecord r : records) {
            newest = Math.max(newest, r.eventTime);
        }
        List<Integer> late = new ArrayList<>(decisions.lateLettered());
        Collections.sort(late);
        for (int seq : late) {
            GeneratedRecord r = records.get(seq);
            if (!passedIdentities.contains(r.requestId + "\u0000" + r.adId)) {
                sample.add(new Expected("late-only", r.requestId, r.adId, r.eventTime,
                        BUCKETS.isLate(r.eventTime, watermark) ? "LATE" : "NEW"));
            }
        }
        while (sample.size() < SAMPLES) {
            sample.add(new Expected("never-seen", new UUID(random.nextLong(), random.nextLong()).toString(), "ad-" + random.nextInt(5_000),
                    newest, "NEW"));
        }
        return sample;
    }

    private static String csv(String field) {
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    private JsonNode inspectUnchecked(String backend, String... args) {
        try {
            return inspect(backend, args);
        } catch (Exception e) {
            throw new IllegalStateException("dedup-tools inspect " + String.join(" ", args), e);
        }
    }

    private JsonNode inspect(String backend, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("inspect"));
        all.addAll(List.of(args));
        DedupToolsProcess.Result result = DedupToolsProcess.run(cluster.runDir().resolve("tools-" + backend), all).succeeded();
        return json.readTree(result.stdout());
    }

    /** Triggers a savepoint without cancelling ({@code POST /jobs/:id/savepoints}); returns its location once completed. */
    private String triggerSavepoint(String jobId, Path directory) throws Exception {
        var response = cluster.rest("POST", "/jobs/" + jobId + "/savepoints",
                json.writeValueAsString(Map.of("target-directory", directory.toUri().toString(), "cancel-job", false)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        String trigger = json.readTree(response.body()).path("request-id").asText();
        String[] location = new String[1];
        waitUntil(Duration.ofSeconds(60), "savepoint of job " + jobId, () -> {
            JsonNode status = cluster.restJson("/jobs/" + jobId + "/savepoints/" + trigger);
            assertThat(status.path("operation").has("failure-cause")).as("savepoint failed: %s", status).isFalse();
            location[0] = status.path("operation").path("location").asText(null);
            return status.path("status").path("id").asText().equals("COMPLETED");
        });
        return location[0];
    }

    /**
     * The gauges once REST serves values fetched after the savepoint: the web monitor fetches metrics on demand, at most
     * every {@link StandaloneCluster#METRICS_FETCH_INTERVAL}, and answers from what it fetched before; so wait for nonzero
     * values that stay the same across more than two intervals (no input flows: they cannot change any more).
     */
    private static final Duration SETTLED_AFTER = StandaloneCluster.METRICS_FETCH_INTERVAL.multipliedBy(5).dividedBy(2);

    private Map<String, Double> settledDedupGauges(String jobId) throws Exception {
        long[] since = {System.nanoTime()};
        List<Map<String, Double>> last = new ArrayList<>(List.of(Map.of()));
        waitUntil(Duration.ofSeconds(60), "the dedup gauges of job " + jobId + " to settle", () -> {
            Map<String, Double> gauges = dedupGauges(jobId);
            if (!gauges.equals(last.get(0))) {
                last.set(0, gauges);
                since[0] = System.nanoTime();
                return false;
            }
            return gauges.size() == 8 && gauges.get("live-buckets sum") > 0 && System.nanoTime() - since[0] > SETTLED_AFTER.toNanos();
        });
        return last.get(0);
    }

    /** The dedup operator's gauges over its subtasks, from REST: "live-buckets sum", "estimated-fpp max", ... */
    private Map<String, Double> dedupGauges(String jobId) {
        return cluster.subtaskMetrics(jobId, List.of("live-buckets", "bloom-bytes", "max-fill-ratio", "estimated-fpp"));
    }
}
