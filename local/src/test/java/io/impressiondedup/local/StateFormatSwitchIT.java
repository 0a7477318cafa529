package io.impressiondedup.local;

import static io.impressiondedup.local.StandaloneCluster.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.plan.FalsePositiveBound;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A switch of {@code --state-format} from bloom to fingerprints on the real standalone cluster, as an operator makes it:
 * stop with a savepoint, resume with the other format. Each shard's bucket keeps the format it was created in until it
 * expires, so across the switch a copy must still be found in the Bloom bucket of its original, and the Bloom buckets
 * must leave by expiry only, after which the state is fingerprints alone.
 *
 * <p>The stream covers six whole UTC days ending at today's midnight (so no record is in the future), with copies
 * re-sent seconds to two days later and 2% of requests from clients hours late. The first run (Bloom, parallelism 2)
 * reads it up to ten minutes before the end of its second day D: every Bloom bucket is of day D or before. The
 * resumed run (fingerprints, parallelism 3) reads the rest: copies of the first run's impressions while their Bloom
 * buckets live, delayed impressions of day D into them, and four more days, which move the watermark past the expiry
 * of day D's buckets (its end + 2 d retention + 1 d allowed lateness). It is stopped with {@code --drain}, which
 * expires nothing more.
 *
 * <p>Then: the verifier finds no copy passed, nothing lost or written twice and nothing genuine dead-lettered; the
 * resumed run's {@code buckets-expired} reaches the first savepoint's count of shard-buckets; {@code dedup-tools
 * inspect} shows the first savepoint all Bloom and the last one all fingerprints, none of day D or before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedCluster.class)
class StateFormatSwitchIT {

    static final double FPP = 0.001;
    static final int RECORDS = 36_000;
    static final Duration SPAN = Duration.ofDays(6);
    /** How long before day D ends the first part stops: more than the generator's jitter (30 s), so no Bloom bucket is of D + 1. */
    static final Duration SWITCH_MARGIN = Duration.ofMinutes(10);
    /** The job's default buckets: daily, retention 2 d, allowed lateness 1 d, UTC. */
    static final TimeBuckets BUCKETS = TimeBuckets.defaults();
    static final String GROUP = "state-format-switch-it";
    static final String INPUT = "switch-impressions";
    static final String OUTPUT = "switch-deduplicated";
    static final String DEAD_LETTERS = "switch-dead-letters";

    private final ObjectMapper json = new ObjectMapper();
    private StandaloneCluster cluster;
    private String bootstrap;

    @BeforeAll
    void useTheSharedCluster() {
        cluster = SharedCluster.cluster();
        bootstrap = cluster.bootstrapServers();
    }

    @Test
    void aSwitchFromBloomToFingerprintsDropsCopiesAcrossItAndExpiresTheBloomBuckets() throws Exception {
        long started = System.nanoTime();
        KafkaTopics.create(bootstrap, Map.of(INPUT, 4, OUTPUT, 4, DEAD_LETTERS, 1), Map.of());
        Path runDir = cluster.runDir();
        Path truthFile = runDir.resolve("state-format-switch-truth.csv");
        Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(SPAN);
        long dayD = BUCKETS.bucketOf(start.plus(Duration.ofDays(1)).toEpochMilli());
        long switchAt = BUCKETS.startOf(dayD) + BUCKETS.bucketSize().toMillis() - SWITCH_MARGIN.toMillis();
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(20_250_302)
                .start(start).span(SPAN).delayedShare(0.02).build());
        List<String> jobArgs = List.of("--bootstrap-servers", bootstrap, "--input-topic", INPUT,
                "--output-topic", OUTPUT, "--dlq-topic", DEAD_LETTERS, "--capacity", "8000",
                "--fpp", Double.toString(FPP), "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
                "--group-id", GROUP, "--transactional-id-prefix", GROUP);
        List<String> fingerprintArgs = new ArrayList<>(jobArgs);
        fingerprintArgs.addAll(List.of("--state-format", "fingerprints"));

        int firstPart;
        JsonNode before;
        String drained;
        long expired;
        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, INPUT, Map.of())) {
            GeneratedRecord first = produceUntil(switchAt, generator, input, truth);
            firstPart = Math.toIntExact(first.seq);
            String bloomJob = cluster.submit(2, jobArgs);
            awaitCaughtUp(bloomJob);
            String bloomSavepoint = cluster.script("job.sh", "stop-with-savepoint", bloomJob).trim();
            // Inspected in a JVM of its own while the second part is written and caught up with (first read below).
            CompletableFuture<JsonNode> inspected = CompletableFuture.supplyAsync(() -> inspectUnchecked(bloomSavepoint));

            write(first, input, truth);
            ClusterIT.produce(generator, RECORDS, input, truth);
            String fingerprintJob = cluster.submit(3, bloomSavepoint, fingerprintArgs);
            awaitCaughtUp(fingerprintJob);
            before = inspected.join();
            expired = awaitBucketsExpired(fingerprintJob, liveShardBuckets(before));
            drained = cluster.script("job.sh", "stop-with-savepoint", fingerprintJob, "--drain").trim();
        }

        JsonNode after = inspect(drained);
        GroundTruth truth = GroundTruth.read(truthFile);
        long[] eventTimes = GroundTruth.eventTimes(truthFile);
        int copiesAcross = 0;
        int delayedIntoBloomDays = 0;
        for (int seq = firstPart; seq < truth.size(); seq++) {
            if (truth.recordClass(seq) == RecordClass.DUPLICATE_WITHIN_RETENTION && truth.group(seq) < firstPart) {
                copiesAcross++; // its original is in the first part: in a Bloom bucket of day D or before
            } else if (truth.recordClass(seq) == RecordClass.UNIQUE && BUCKETS.bucketOf(eventTimes[seq]) <= dayD) {
                delayedIntoBloomDays++;
            }
        }
        VerificationReport report = Verifier.verifyTopics(truth, bootstrap, OUTPUT, DEAD_LETTERS);
        String text = report.toText(FPP);
        System.out.println(text);
        System.out.printf("state format switch: %d records in (%d before the switch), %d unique in the output, %d duplicates"
                        + " dropped, %d copies of first-part impressions after the switch, %d delayed impressions of day D or before"
                        + " after it; Bloom savepoint %s shard-buckets, %d expired by the fingerprint run; drained savepoint %s;"
                        + " took %.0f s%n", report.input(), firstPart, report.outputRecords(), report.duplicatesDropped(), copiesAcross,
                delayedIntoBloomDays, formatsOf(before), expired, formatsOf(after), (System.nanoTime() - started) / 1e9);

        assertThat(report.input()).isEqualTo(RECORDS);
        assertThat(copiesAcross).as("copies of first-part impressions written after the switch").isGreaterThan(100);
        assertThat(delayedIntoBloomDays).as("delayed impressions of Bloom days written after the switch").isPositive();
        assertThat(report.falseNegatives()).as(text).isZero();
        assertThat(report.lost()).as(text).isZero();
        assertThat(report.genuineDeadLettered()).as(text).isZero();
        assertThat(report.writtenTwice()).as(text).isZero();
        assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
        // Each bucket in the format it was created in: day D and before as Bloom filters, the days after as fingerprints, whose
        // promised chance grows linearly with their fill (FalsePositiveBound#promisedFingerprintBucketFpp).
        FalsePositiveBound bound = FalsePositiveLimit.of(truthFile, DedupJobConfig.parse(jobArgs.toArray(new String[0])).dedupSettings().plan(),
                bucket -> bucket <= dayD ? StateFormat.BLOOM : StateFormat.FINGERPRINTS);
        System.out.println(bound.describe(report.falsePositives()));
        assertThat(FalsePositiveLimit.exceeded(report, bound)).as(text).isEmpty();

        assertThat(formatsOf(before)).as("formats of the Bloom run's savepoint").containsOnlyKeys("bloom");
        assertThat(bucketsOf(before).last()).as("newest bucket of the Bloom run (day D is %s)", dayD).isEqualTo(dayD);
        assertThat(expired).as("shard-buckets the fingerprint run expired").isGreaterThanOrEqualTo(liveShardBuckets(before));
        assertThat(formatsOf(after)).as("formats of the drained savepoint").containsOnlyKeys("fingerprints");
        assertThat(bucketsOf(after).first()).as("oldest live bucket after the switch (day D is %s)", dayD).isGreaterThan(dayD);
    }

    /**
     * Writes the generator's records until the first that has a valid event time at or after {@code switchAt} (a record
     * dated in the future is dead-lettered, and creates no bucket), which it returns unwritten.
     */
    private static GeneratedRecord produceUntil(long switchAt, ImpressionGenerator generator, KafkaTopicDestination input,
            GroundTruthWriter truth) throws Exception {
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            if (record.recordClass != RecordClass.FUTURE && record.eventTime != Long.MIN_VALUE && record.eventTime >= switchAt) {
                input.flush();
                return record;
            }
            write(record, input, truth);
        }
        throw new AssertionError("The stream ended before " + Instant.ofEpochMilli(switchAt));
    }

    private static void write(GeneratedRecord record, KafkaTopicDestination input, GroundTruthWriter truth) throws Exception {
        input.write(record);
        truth.write(record);
    }

    private void awaitCaughtUp(String job) throws Exception {
        CheckpointedCatchUp.await(cluster, job, GROUP, INPUT, List.of(OUTPUT, DEAD_LETTERS), Duration.ofSeconds(120));
    }

    /**
     * The job's {@code buckets-expired} over its subtasks once it reaches {@code atLeast}: all input is processed, but REST
     * serves metrics fetched up to {@link StandaloneCluster#METRICS_FETCH_INTERVAL} before, and the last expiry timers fire with the watermark after the last records.
     */
    private long awaitBucketsExpired(String jobId, int atLeast) throws Exception {
        long[] expired = {-1};
        try {
            waitUntil(Duration.ofSeconds(60), "buckets-expired >= " + atLeast, () -> {
                expired[0] = cluster.subtaskMetrics(jobId, List.of("buckets-expired")).getOrDefault("buckets-expired sum", -1.0).longValue();
                return expired[0] >= atLeast;
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": the fingerprint run expired " + expired[0] + " shard-buckets", e);
        }
        return expired[0];
    }

    private JsonNode inspectUnchecked(String savepoint) {
        try {
            return inspect(savepoint);
        } catch (Exception e) {
            throw new IllegalStateException("dedup-tools inspect " + savepoint, e);
        }
    }

    private JsonNode inspect(String savepoint) throws Exception {
        DedupToolsProcess.Result result = DedupToolsProcess.run(cluster.runDir().resolve("tools-state-format-switch"),
                "inspect", "--savepoint", savepoint, "--json", "--parallelism", "2").succeeded();
        return json.readTree(result.stdout());
    }

    private static int liveShardBuckets(JsonNode inspected) {
        return inspected.get("totals").get("liveBuckets").asInt();
    }

    /** Shard-buckets by state format over every live bucket of an inspected savepoint. */
    private static Map<String, Integer> formatsOf(JsonNode inspected) {
        Map<String, Integer> formats = new java.util.TreeMap<>();
        for (JsonNode bucket : inspected.get("buckets")) {
            bucket.get("formats").fields().forEachRemaining(f -> formats.merge(f.getKey(), f.getValue().asInt(), Integer::sum));
        }
        return formats;
    }

    private static TreeSet<Long> bucketsOf(JsonNode inspected) {
        TreeSet<Long> buckets = new TreeSet<>();
        inspected.get("buckets").forEach(bucket -> buckets.add(bucket.get("bucket").asLong()));
        return buckets;
    }
}
