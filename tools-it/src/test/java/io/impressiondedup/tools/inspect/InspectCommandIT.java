package io.impressiondedup.tools.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.FilterStatistics;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.reshape.ShardReshape;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.tools.DedupTools;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import io.impressiondedup.tools.savepoint.FingerprintState;
import io.impressiondedup.tools.savepoint.HeapDedupState;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dedup-tools inspect} on savepoints written by the tools' writer from state built as the operator builds it. */
class InspectCommandIT {

    private static final Duration DAY = Duration.ofDays(1);
    /** Default buckets: 1 day, retention 2 days, allowed lateness 1 day, UTC. */
    private static final TimeBuckets BUCKETS = TimeBuckets.defaults();
    private static final long D = BUCKETS.bucketOf(Instant.parse("2024-05-10T00:00:00Z").toEpochMilli());
    private static final long HOUR = Duration.ofHours(1).toMillis();

    @TempDir
    Path dir;

    private static DedupPlan plan(long capacity) {
        return DedupPlan.builder().capacityPerBucket(capacity).shards(8).fpp(0.001).timeBuckets(BUCKETS).build();
    }

    /** {@code plan} as a job with a fingerprint secret has it: new filters hash ad ids with the secret's key. */
    private static DedupPlan keyedAdIds(DedupPlan plan) {
        return plan.withFingerprintScheme(plan.fingerprintScheme().withAdIdsKeyed(true));
    }

    private static long start(long bucket) {
        return BUCKETS.startOf(bucket);
    }

    /** What a run printed and returned. */
    private record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            assertThat(exit).as(err).isZero();
            return new ObjectMapper().readTree(out);
        }

        List<String> verdicts() throws Exception {
            List<String> verdicts = new ArrayList<>();
            for (JsonNode query : json().get("queries")) {
                verdicts.add(query.get("verdict").asText() + (query.has("bucket") ? " " + query.get("bucket").asLong() : ""));
            }
            return verdicts;
        }
    }

    private static Run inspect(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("inspect"));
        all.addAll(List.of(args));
        int exit = DedupTools.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path queries(String... lines) throws Exception {
        Path file = Files.createTempFile(dir, "queries", ".csv");
        Files.write(file, List.of(lines));
        return file;
    }

    private static String q(String requestId, String adId, long eventTime) {
        return requestId + "," + adId + "," + eventTime;
    }

    @Test
    void aCopyUpToTheRetentionPlusTheRestOfItsBucketIsADuplicateFoundInThatBucketAndOneMillisecondFurtherIsNot() throws Exception {
        HeapDedupState state = new HeapDedupState(plan(1_000), null);
        long t0 = start(D) + HOUR;
        state.insert("req-1", "ad-1", t0);
        String savepoint = state.write(dir, 8, FingerprintSecret.NO_SECRET, t0);

        long lastInRange = start(D + 3) - 1; // firstBucketToCheck = bucketOf(t - 2d) = D, the oldest bucket it checks
        Run run = inspect("--savepoint", savepoint, "--json", "--parallelism", "1", "--query-file", queries(
                "requestId,adId,eventTime",
                q("req-1", "ad-1", t0),
                q("req-1", "ad-1", lastInRange),
                q("req-1", "ad-1", lastInRange + 1),
                q("req-1", "ad-2", t0),
                q("\"req-1\"", "ad-1", t0 - HOUR),
                q("req-1", "ad-1", start(D) - 2 * DAY.toMillis()),
                q("req-1", "ad-1", start(D) - 2 * DAY.toMillis() - 1)).toString());

        assertThat(run.verdicts()).containsExactly(
                "DUPLICATE " + D, "DUPLICATE " + D, "NEW", "NEW", "DUPLICATE " + D,
                "DUPLICATE " + D, // lastBucketToCheck(t) = bucketOf(t + 2d) = D; t is 1 day behind W, so in time
                "LATE"); // lastBucketToCheck(t) = D - 1, and t is more than 1 day behind W
        assertThat(run.json().get("queries").get(0).get("bucketStart").asText()).isEqualTo("2024-05-10T00:00:00Z");
    }

    @Test
    void aLateRecordIsADuplicateOnlyInALiveBucketElseLateAndExactlyTheAllowedLatenessBehindIsInTime() throws Exception {
        HeapDedupState state = new HeapDedupState(plan(1_000), null);
        state.insert("old", "ad", start(D) + HOUR);        // bucket D: expired at W (end + R + L = start(D + 4)), timer not fired yet
        state.insert("live", "ad", start(D + 1) + HOUR);   // bucket D + 1: live until start(D + 5)
        long watermark = start(D + 4) + HOUR;
        String savepoint = state.write(dir, 8, null, watermark);
        long limit = watermark - DAY.toMillis();

        Run run = inspect("--savepoint", savepoint, "--json", "--parallelism", "2", "--query-file", queries(
                q("old", "ad", start(D) + HOUR),
                q("live", "ad", start(D + 1) + HOUR),
                q("never", "ad", limit),
                q("never", "ad", limit - 1),
                q("live", "ad", limit)).toString());

        assertThat(run.verdicts()).containsExactly("LATE", "DUPLICATE " + (D + 1), "NEW", "LATE", "DUPLICATE " + (D + 1));
        assertThat(run.json().get("facts").get("latenessWatermark").asLong()).isEqualTo(watermark);
        assertThat(run.json().get("facts").get("fingerprintSecret").asBoolean()).isFalse();
    }

    @Test
    void aSecretIsRequiredExactlyWhenTheStateWasWrittenWithOneAndMustBeThatSecret() throws Exception {
        Path secretFile = dir.resolve("secret");
        Files.writeString(secretFile, "0123456789abcdef0123456789abcdef\n");
        Path otherFile = dir.resolve("other");
        Files.writeString(otherFile, "fedcba9876543210fedcba9876543210\n");
        FingerprintSecret secret = FingerprintSecret.read(secretFile);
        // A job with a secret hashes ad ids with its key: inspect must too.
        HeapDedupState state = new HeapDedupState(keyedAdIds(plan(1_000)), secret);
        long t = start(D) + HOUR;
        for (int i = 0; i < 50; i++) {
            state.insert("req-" + i, "ad", t);
        }
        String savepoint = state.write(dir, 8, secret.checkValue(), t);
        List<String> query = List.of("--savepoint", savepoint, "--json", "--parallelism", "1", "--request-id", "req-7", "--ad-id", "ad",
                "--event-time", Instant.ofEpochMilli(t).toString());

        assertThat(inspect(with(query, "--fingerprint-secret-file", secretFile.toString())).verdicts()).containsExactly("DUPLICATE " + D);
        Run other = inspect(with(query, "--fingerprint-secret-file", otherFile.toString()));
        assertThat(other.exit()).isEqualTo(2);
        assertThat(other.err()).contains("another fingerprint secret", "--fingerprint-secret-file");
        Run missing = inspect(query.toArray(String[]::new));
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("written with a fingerprint secret", "--fingerprint-secret-file");

        // State written before check values were slow holds the secret's legacy check value: the same secret still opens it.
        // Such state is older than keyed ad ids too: its filters hash ad ids unkeyed, and inspect probes them so.
        HeapDedupState unkeyed = new HeapDedupState(plan(1_000), secret);
        for (int i = 0; i < 50; i++) {
            unkeyed.insert("req-" + i, "ad", t);
        }
        String legacy = unkeyed.write(Files.createDirectory(dir.resolve("legacy")), 8, secret.checkValueV1(), t);
        List<String> legacyQuery = new java.util.ArrayList<>(query);
        legacyQuery.set(1, legacy);
        assertThat(inspect(with(legacyQuery, "--fingerprint-secret-file", secretFile.toString())).verdicts()).containsExactly("DUPLICATE " + D);
        assertThat(inspect(with(legacyQuery, "--fingerprint-secret-file", otherFile.toString())).err()).contains("another fingerprint secret");
    }

    private static String[] with(List<String> args, String... more) {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void statisticsAreTheGaugesFiguresOverAllShardsAndBitsAreCountedInThePagesOfEachFilter() throws Exception {
        HeapDedupState state = new HeapDedupState(plan(800), null); // 100 per shard: bucket D + 1 grows a layer in every shard
        for (int i = 0; i < 400; i++) {
            state.insert("req-" + i, "ad-" + (i % 3), start(D) + i * 1000L);
        }
        for (int i = 0; i < 1_500; i++) {
            state.insert("more-" + i, "ad", start(D + 1) + i * 1000L);
        }
        String savepoint = state.write(dir, 4, FingerprintSecret.NO_SECRET, start(D + 1));

        JsonNode json = inspect("--savepoint", savepoint, "--json", "--per-shard", "--parallelism", "2").json();

        FilterStatistics expected = FilterStatistics.of(state.directories.values().toArray(BucketFilters[]::new));
        JsonNode totals = json.get("totals");
        assertThat(totals.get("liveBuckets").asInt()).isEqualTo(expected.liveBuckets()).isEqualTo(16);
        assertThat(totals.get("bloomBytes").asLong()).isEqualTo(expected.bloomBytes());
        assertThat(totals.get("maxFillRatio").asDouble()).isEqualTo(expected.maxFillRatio());
        assertThat(totals.get("estimatedFpp").asDouble()).isEqualTo(expected.worstShardEstimatedFpp());
        assertThat(json.get("facts").get("shards").asInt()).isEqualTo(8);
        assertThat(json.get("facts").get("maxParallelism").asInt()).isEqualTo(4);

        JsonNode perShard = json.get("shards");
        assertThat(perShard).hasSize(16);
        for (JsonNode row : perShard) {
            int shard = row.get("shard").asInt();
            long bucket = row.get("bucket").asLong();
            var filter = (io.impressiondedup.state.bloom.ScalableBloomFilter) state.directories.get(shard).get(bucket);
            assertThat(row.get("inserted").asLong()).isEqualTo(filter.inserted());
            assertThat(row.get("layers").asInt()).isEqualTo(filter.layerCount());
            assertThat(row.get("bitsSet").asLong()).as("shard %s bucket %s", shard, bucket).isEqualTo(state.bitsSet(shard, bucket));
            assertThat(row.get("estimatedFpp").asDouble()).isEqualTo(filter.estimatedFpp());
            assertThat(row.get("fillFpp").asDouble()).isCloseTo(state.fillFpp(shard, bucket), org.assertj.core.data.Percentage.withPercentage(1e-9));
            if (bucket == D + 1) { // well filled: the bits set give about the FPP the insert counts predict (blocked formula)
                assertThat(row.get("fillFpp").asDouble()).isBetween(filter.estimatedFpp() / 3, filter.estimatedFpp() * 3);
            }
        }
        JsonNode buckets = json.get("buckets");
        assertThat(buckets).hasSize(2);
        assertThat(buckets.get(0).get("inserted").asLong()).isEqualTo(400);
        assertThat(buckets.get(1).get("inserted").asLong()).isEqualTo(1_500);
        assertThat(buckets.get(1).get("maxLayers").asInt()).isEqualTo(2);
        assertThat(buckets.get(1).get("start").asText()).isEqualTo("2024-05-11T00:00:00Z");

        Run table = inspect("--savepoint", savepoint, "--parallelism", "1");
        assertThat(table.exit()).isZero();
        assertThat(table.out()).contains("live shard-buckets 16", "2024-05-11T00:00:00Z", "fingerprint secret none",
                "dedup key not recorded (accepted under any key)");
    }

    /**
     * Fingerprint buckets show what they hold in their own terms: the distinct fingerprints counted in the pages (equal
     * to the directory's count), the parts of a bucket merged from two shards, the highest band open and the values in
     * the overflow sections of a shard flooded past its state cap; no Bloom column means anything for them and none is
     * printed ("-" in the table, absent in JSON). The fill and FPP of a merged bucket are its fullest part's.
     */
    @Test
    void fingerprintBucketsShowTheirPartsBandsAndOverflowAndNoBloomColumn() throws Exception {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(160).shards(8).fpp(0.001).stateFormat(StateFormat.FINGERPRINTS).build();
        FingerprintState state = new FingerprintState(plan);
        for (int i = 0; i < 3_000; i++) {
            state.insert("flood", "ad-" + i, start(D) + i); // one request id: one shard, far past its state cap
        }
        for (int i = 0; i < 400; i++) {
            state.insert("req-" + i, "ad", start(D) + i * 1000L);
        }
        ShardReshape merge = ShardReshape.plan(8, 4, state.directories);
        List<ShardEntry> entries = new ArrayList<>();
        merge.directories().forEach((shard, directory) -> entries.add(ShardEntry.directory(shard, directory)));
        state.pages.forEach((shard, pages) -> pages.forEach((key, page) -> merge.moveFingerprintPage(shard, key, page,
                (to, newKey, moved) -> entries.add(ShardEntry.fingerprintPage(to, newKey, moved)))));
        String savepoint = dir.resolve("merged").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), 4)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(entries), new ShardKeys(4, 4), 0L, null, null))
                .write(savepoint);
        env.execute("write");

        JsonNode json = inspect("--savepoint", savepoint, "--json", "--per-shard", "--parallelism", "2").json();

        long overflowed = 0;
        int mostParts = 0;
        for (JsonNode row : json.get("shards")) {
            var bucket = (FingerprintBucket) merge.directories().get(row.get("shard").asInt()).get(row.get("bucket").asLong());
            assertThat(row.get("format").asText()).isEqualTo("fingerprints");
            assertThat(row.get("fingerprints").asLong()).as("counted in the pages").isEqualTo(bucket.inserted());
            assertThat(row.get("parts").asInt()).isEqualTo(bucket.parts().size());
            assertThat(row.get("overflowed").asLong()).isEqualTo(bucket.overflowed());
            assertThat(row.get("fillRatio").asDouble()).as("the fullest part's").isEqualTo(bucket.loadFactor());
            assertThat(row.get("estimatedFpp").asDouble()).isEqualTo(bucket.estimatedFpp());
            assertThat(row.has("bitsSet") || row.has("bitsTotal") || row.has("layers")).as("no Bloom figure").isFalse();
            overflowed += row.get("overflowed").asLong();
            mostParts = Math.max(mostParts, row.get("parts").asInt());
        }
        assertThat(mostParts).as("a bucket of two merged shards").isEqualTo(2);
        assertThat(overflowed).as("the flooded shard's overflow").isPositive();
        JsonNode bucket = json.get("buckets").get(0);
        assertThat(bucket.get("maxBand").asInt()).as("bands opened before the cap").isPositive();
        assertThat(bucket.get("overflowed").asLong()).isEqualTo(overflowed);
        assertThat(bucket.has("bitsSet")).isFalse();

        String table = inspect("--savepoint", savepoint, "--per-shard", "--parallelism", "1").out();
        String row = table.lines().filter(line -> line.startsWith("     0 ")).findFirst().orElseThrow();
        assertThat(row.split("\\s+")).as("a per-shard row: the six Bloom columns are '-'").containsSequence("-", "-", "-", "-", "-");
        assertThat(table).doesNotContain("NaN");
    }

    @Test
    void aBadCommandLineOrASecretTheStateHasNoneOfExitsTwoNamingTheOption() throws Exception {
        HeapDedupState state = new HeapDedupState(plan(1_000), null);
        state.insert("r", "a", start(D));
        String savepoint = state.write(dir, 8, FingerprintSecret.NO_SECRET, null);

        assertThat(inspect("--json").err()).contains("--savepoint");
        Run badTime = inspect("--savepoint", savepoint, "--request-id", "r", "--ad-id", "a", "--event-time", "yesterday");
        assertThat(badTime.exit()).isEqualTo(2);
        assertThat(badTime.err()).contains("--event-time", "yesterday");
        Run partial = inspect("--savepoint", savepoint, "--request-id", "r");
        assertThat(partial.exit()).isEqualTo(2);
        assertThat(partial.err()).contains("--ad-id", "--event-time");
        Run badLine = inspect("--savepoint", savepoint, "--query-file", queries("r,a,1", "r,a").toString());
        assertThat(badLine.exit()).isEqualTo(2);
        assertThat(badLine.err()).contains("--query-file", "line 2");
        Run unknown = inspect("--savepoint", savepoint, "--shard", "3");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("--shard");
        Path secretFile = dir.resolve("secret");
        Files.writeString(secretFile, "0123456789abcdef0123456789abcdef\n");
        Run extraSecret = inspect("--savepoint", savepoint, "--fingerprint-secret-file", secretFile.toString());
        assertThat(extraSecret.exit()).isEqualTo(2);
        assertThat(extraSecret.err()).contains("written without a fingerprint secret", "--fingerprint-secret-file");
        Run help = inspect("--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("--savepoint", "--per-shard", "--query-file", "--fingerprint-secret-file", "--bucket-size");
    }
}
