package io.impressiondedup.operators.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.operators.dedup.ExactDedupReference.Verdict;
import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Savepoints written by earlier releases restore, and the operator then decides exactly as the exact
 * reference does over the whole stream ({@link GoldenStream}). One fixture per released state format
 * and backend, in {@code src/test/resources/golden/}; never rewrite one: add a new version instead.
 *
 * <p>{@code v1}: the state format of the first release (bucket directory + page groups, expiry timers
 * at bucket end + retention), written before allowed lateness existed.
 *
 * <p>{@code v2}: with the fingerprint secret's check value in operator state, written with a secret
 * ({@link GoldenStream#SECRET}); expiry timers at bucket end + retention + allowed lateness.
 *
 * <p>{@code v3}: with the dedup key's description in operator state ({@link GoldenStream#KEY}), otherwise as
 * {@code v2}.
 *
 * <p>{@code v4}: filter format v2 (each filter records whether its ad ids are hashed with the secret's key, and these
 * are), the check value derived by PBKDF2, and the time options with the start of the oldest bucket held in
 * operator state ({@code TimeBuckets} rule 7); otherwise as {@code v3}.
 *
 * <p>{@code v5}: bucket directory format v3 (a format tag per bucket) and every bucket in the fingerprint format
 * ({@code --state-format fingerprints}: sections in the {@code fingerprint-pages} state, none in the Bloom page groups);
 * otherwise as {@code v4}.
 *
 * <p>{@code v6}: bucket directory format v4 (fingerprint buckets in parts, each with its own sizing, cell and counts),
 * written at 128 shards and reshaped to 64 as {@code dedup-tools reshape} does: every bucket in two parts, their pages
 * at page keys {@code (2 P, j P + p)}; otherwise as {@code v5}.
 */
class GoldenSavepointTest {

    private static final Path FIXTURES = Paths.get("src/test/resources/golden");

    static String fixture(String version, Backend backend) {
        return FIXTURES.resolve("dedup-operator-" + version + "-" + backend.name().toLowerCase() + ".savepoint").toString();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV1SavepointRestoresAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v1", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(), backend, 1, 0, savepoint)) {
            feed(h, GoldenStream.AFTER);
            assertDecidedAsTheExactReference(h);
            // The v1 timers of day 0 (end + retention) fired before the current rule allows, and were moved.
            assertThat(h.counter(DedupMetrics.BUCKET_EXPIRIES_DEFERRED)).isEqualTo(DedupHarness.MAX_PARALLELISM);
        }
    }

    /** v1 knew no secret: its state was digested without one, and a secret would look every request up elsewhere. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV1SavepointRefusesARestoreWithAFingerprintSecret(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v1", backend));
        assertThatThrownBy(() -> DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue()), backend, 1, 0, savepoint))
                .hasStackTraceContaining("written without a fingerprint secret, but this job runs with --fingerprint-secret-file");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV2SavepointRestoresWithItsSecretAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v2", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue()), backend, 1, 0, savepoint)) {
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
            assertThat(h.counter(DedupMetrics.BUCKET_EXPIRIES_DEFERRED)).as("v2 timers are at the current expiry").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV2SavepointRefusesAnotherSecretAndNoSecretNamingTheOption(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v2", backend));
        FingerprintSecret other = FingerprintSecret.of("another-secret-of-thirty-two-bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> DedupHarness.open(GoldenStream.settings(other.checkValue()), backend, 1, 0, savepoint))
                .hasStackTraceContaining("written with another fingerprint secret (check value "
                        + FingerprintSecret.describeCheckValue(GoldenStream.SECRET.checkValueV1()) + ")")
                .hasStackTraceContaining("--fingerprint-secret-file");
        assertThatThrownBy(() -> DedupHarness.open(GoldenStream.settings(), backend, 1, 0, savepoint))
                .hasStackTraceContaining("written with a fingerprint secret")
                .hasStackTraceContaining("but this job runs without --fingerprint-secret-file");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV3SavepointRestoresUnderItsKeyAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v3", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue()), backend, 1, 0, savepoint)) {
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV4SavepointRestoresWithKeyedAdIdsAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v4", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue()), backend, 1, 0, savepoint)) {
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
            assertThat(h.counter(DedupMetrics.BUCKET_EXPIRIES_DEFERRED)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV5SavepointRestoresItsFingerprintBucketsAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v5", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.FINGERPRINTS), backend,
                1, 0, savepoint)) {
            assertThat(restoredFormats(h)).containsExactly(StateFormat.FINGERPRINTS);
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
        }
    }

    /** The way back: restored with {@code --state-format bloom}, the fingerprint buckets still answer until they expire. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV5SavepointRestoredWithTheBloomFormatStillFindsTheCopiesInItsFingerprintBuckets(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v5", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.BLOOM), backend,
                1, 0, savepoint)) {
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV6SavepointRestoresItsBucketsInPartsAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v6", backend));
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.FINGERPRINTS, 64), backend,
                1, 0, savepoint)) {
            assertThat(restoredCellCounts(h)).as("every part a half of its shard").containsExactly(2);
            assertThat(maxPartsPerBucket(h)).as("buckets both halves held").isEqualTo(2);
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
        }
    }

    /** Reshaped back to 128 shards, each part goes back to the one shard that holds it: the reference's decisions still. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV6SavepointReshapedBackTo128ShardsDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v6", backend));
        OperatorSubtaskState reshaped;
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.FINGERPRINTS, 64), backend,
                1, 0, savepoint)) {
            h.snapshot(1);
            reshaped = h.reshaped(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.FINGERPRINTS), lastWatermarkBefore());
        }
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), StateFormat.FINGERPRINTS), backend,
                1, 0, reshaped)) {
            assertThat(restoredCellCounts(h)).as("every part its whole shard after the way back").containsExactly(1);
            assertThat(maxPartsPerBucket(h)).isEqualTo(1);
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
        }
    }

    private static long lastWatermarkBefore() {
        return GoldenStream.BEFORE.stream().filter(Long.class::isInstance).mapToLong(Long.class::cast).max().orElseThrow();
    }

    /** The cell counts of the parts of the restored buckets of every shard of {@code h}, each once. */
    private static Set<Integer> restoredCellCounts(DedupHarness h) throws Exception {
        Set<Integer> cells = new java.util.TreeSet<>();
        for (BucketFilters directory : h.storedDirectories().values()) {
            for (int i = 0; i < directory.size(); i++) {
                for (var part : ((io.impressiondedup.state.fingerprints.FingerprintBucket) directory.filterAt(i)).parts()) {
                    cells.add(part.cellCount());
                }
            }
        }
        return cells;
    }

    /** The most parts a restored bucket of {@code h} has. */
    private static int maxPartsPerBucket(DedupHarness h) throws Exception {
        int most = 0;
        for (BucketFilters directory : h.storedDirectories().values()) {
            for (int i = 0; i < directory.size(); i++) {
                most = Math.max(most, ((io.impressiondedup.state.fingerprints.FingerprintBucket) directory.filterAt(i)).parts().size());
            }
        }
        return most;
    }

    /** The formats of the restored buckets of every shard of {@code h}, each once. */
    private static Set<StateFormat> restoredFormats(DedupHarness h) throws Exception {
        Set<StateFormat> formats = new java.util.TreeSet<>();
        for (int key : h.shardKeysWithState()) {
            BucketFilters directory = h.storedDirectory(key);
            for (int i = 0; i < directory.size(); i++) {
                formats.add(directory.filterAt(i).format());
            }
        }
        return formats;
    }

    /** v4 records its time options: a restore under another bucket size is refused, naming the option and the recorded value. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV4SavepointRefusesAnotherBucketSizeNamingTheOption(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v4", backend));
        DedupSettings written = GoldenStream.settings(GoldenStream.SECRET.checkValue());
        TimeBuckets sixHours = new TimeBuckets(java.time.Duration.ofHours(6), written.plan().timeBuckets().retention(),
                written.plan().timeBuckets().allowedLateness(), written.plan().timeBuckets().zone());
        DedupSettings other = DedupSettings.builder().plan(DedupPlan.builder().capacityPerBucket(100_000).shards(DedupHarness.MAX_PARALLELISM)
                        .fpp(0.001).pageBytes(2048).fingerprintScheme(written.plan().fingerprintScheme()).timeBuckets(sixHours).build())
                .fingerprintCheck(GoldenStream.SECRET.checkValue()).dedupKey(GoldenStream.KEY).build();
        assertThatThrownBy(() -> DedupHarness.open(other, backend, 1, 0, savepoint))
                .hasStackTraceContaining("--bucket-size PT24H")
                .hasStackTraceContaining("but this job runs with PT6H");
    }

    /**
     * The upgrade to keyed ad ids: the v3 filters hash ad ids unkeyed and keep doing so (every copy of an impression
     * before the cut is still found, as the exact reference says), while the buckets created after the restore are keyed.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void restoredFiltersKeepTheUnkeyedAdIdHashAndNewBucketsAreKeyed(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v3", backend));
        DedupSettings settings = GoldenStream.settings(GoldenStream.SECRET.checkValue());
        assertThat(settings.plan().fingerprintScheme().adIdsKeyed()).isTrue();
        try (DedupHarness h = DedupHarness.open(settings, backend, 1, 0, savepoint)) {
            Set<Integer> shardKeys = new TreeSet<>();
            for (List<Object> events : List.of(GoldenStream.BEFORE, GoldenStream.AFTER)) {
                events.stream().filter(Impression.class::isInstance).forEach(e -> shardKeys.add(h.shardKeyOf((Impression) e)));
            }
            Map<Integer, Set<Long>> restoredBuckets = new java.util.HashMap<>();
            for (int shardKey : shardKeys) {
                restoredBuckets.put(shardKey, buckets(h.storedDirectory(shardKey)));
            }
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
            savepointOf(h); // flushes the directories to state
            int unkeyed = 0;
            int keyed = 0;
            for (int shardKey : shardKeys) {
                BucketFilters directory = h.storedDirectory(shardKey);
                for (int i = 0; directory != null && i < directory.size(); i++) {
                    boolean restored = restoredBuckets.get(shardKey).contains(directory.bucketAt(i));
                    assertThat(((ScalableBloomFilter) directory.filterAt(i)).fingerprintScheme().adIdsKeyed())
                            .as("shard key %s bucket %s, restored: %s", shardKey, directory.bucketAt(i), restored).isEqualTo(!restored);
                    if (restored) {
                        unkeyed++;
                    } else {
                        keyed++;
                    }
                }
            }
            assertThat(unkeyed).as("restored buckets still live").isPositive();
            assertThat(keyed).as("buckets created after the restore").isPositive();
        }
    }

    private static Set<Long> buckets(BucketFilters directory) {
        Set<Long> buckets = new TreeSet<>();
        for (int i = 0; directory != null && i < directory.size(); i++) {
            buckets.add(directory.bucketAt(i));
        }
        return buckets;
    }

    /** Under another key every impression has another identity: copies of the stored ones would pass, so the restore fails. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV3SavepointRefusesARestoreUnderAnotherDedupKeyNamingTheOption(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v3", backend));
        assertThatThrownBy(() -> restoreUnderKey(savepoint, backend, MOVED_KEY, false))
                .hasStackTraceContaining("written under the dedup key /requestId;/adId, but this job runs with /imp/requestId;/imp/adId"
                        + " (--dedup-key")
                .hasStackTraceContaining("--allow-dedup-key-change");
    }

    /**
     * A key whose fields moved but whose values did not keeps every identity: allowed, the restored state decides as
     * before, and from its next snapshot on the state records the new key (a restore under the old one is refused).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAllowedKeyChangeRestoresTheV3SavepointAndRecordsTheNewKey(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v3", backend));
        OperatorSubtaskState next;
        try (DedupHarness h = restoreUnderKey(savepoint, backend, MOVED_KEY, true)) {
            feed(h, GoldenStream.keyed(GoldenStream.AFTER, GoldenStream.SECRET));
            assertDecidedAsTheExactReference(h);
            next = savepointOf(h);
        }
        assertThatThrownBy(() -> restoreUnderKey(next, backend, GoldenStream.KEY, false))
                .hasStackTraceContaining("written under the dedup key /imp/requestId;/imp/adId, but this job runs with /requestId;/adId");
    }

    /** State from before the key was recorded (v2) restores under any key, and records it from its next snapshot on. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV2SavepointHoldsNoKeyAcceptsAnyAndThenRecordsIt(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v2", backend));
        OperatorSubtaskState next;
        try (DedupHarness h = restoreUnderKey(savepoint, backend, MOVED_KEY, false)) {
            next = savepointOf(h);
        }
        assertThatThrownBy(() -> restoreUnderKey(next, backend, GoldenStream.KEY, false))
                .hasStackTraceContaining("written under the dedup key /imp/requestId;/imp/adId");
        restoreUnderKey(next, backend, MOVED_KEY, false).close();
    }

    /**
     * The golden savepoints hold the secret's fast legacy check value: the operator knows only the slow one, accepts the
     * legacy value it derives to, and from the next snapshot on the state holds the slow one.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV2SavepointsLegacyCheckValueIsAcceptedAndThenReplacedByTheSlowOne(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v2", backend));
        OperatorSubtaskState next;
        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue()), backend, 1, 0, savepoint)) {
            next = savepointOf(h);
        }
        FingerprintSecret other = FingerprintSecret.of("another-secret-of-thirty-two-bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> DedupHarness.open(GoldenStream.settings(other.checkValue()), backend, 1, 0, next))
                .hasStackTraceContaining("written with another fingerprint secret (check value "
                        + FingerprintSecret.describeCheckValue(GoldenStream.SECRET.checkValue()) + ")");
        assertThat(GoldenStream.SECRET.checkValue()).isNotEqualTo(GoldenStream.SECRET.checkValueV1());
    }

    /** The golden key's fields moved into an object: the same values, another description. */
    private static final String MOVED_KEY = "/imp/requestId;/imp/adId";

    /** The golden settings with the golden secret under {@code key}, restored from {@code savepoint}. */
    private static DedupHarness restoreUnderKey(OperatorSubtaskState savepoint, Backend backend, String key, boolean allowChange)
            throws Exception {
        return DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), key, allowChange), backend, 1, 0, savepoint);
    }

    private static OperatorSubtaskState savepointOf(DedupHarness h) throws Exception {
        h.harness.prepareSnapshotPreBarrier(1);
        return h.harness.snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL)).getJobManagerOwnedState();
    }

    /** The operator's decisions after the cut are the exact reference's, which decides on the raw ids. */
    private static void assertDecidedAsTheExactReference(DedupHarness h) {
        Map<Verdict, List<String>> expected = referenceAfterTheCut();
        assertThat(expected.get(Verdict.UNIQUE)).hasSizeGreaterThan(500);
        assertThat(expected.get(Verdict.DUPLICATE)).hasSizeGreaterThan(300);
        // Genuine impressions of day 0 delayed by hours are in time now (the first release dead-lettered them), and copies
        // re-sent after the watermark passed day 0 + retention are late duplicates, not late.
        assertThat(expected.get(Verdict.LATE_DUPLICATE)).hasSizeGreaterThan(50);

        assertThat(sorted(h.emittedRequestIdsWithTime())).isEqualTo(expected.get(Verdict.UNIQUE));
        List<String> duplicates = new ArrayList<>(expected.get(Verdict.DUPLICATE));
        duplicates.addAll(expected.get(Verdict.LATE_DUPLICATE));
        assertThat(sorted(ids(h.duplicates()))).isEqualTo(sorted(duplicates));
        assertThat(sorted(ids(h.late().stream().map(DedupHarness::impressionOf).toList()))).isEqualTo(expected.get(Verdict.LATE));
        assertThat(h.counter(DedupMetrics.LATE_DUPLICATES)).isEqualTo(expected.get(Verdict.LATE_DUPLICATE).size());
    }

    /**
     * Writes the fixtures of the current release, with {@link GoldenStream#SECRET}: {@code mvn -pl operators -am verify
     * -Dtest=GoldenSavepointTest -Dsurefire.failIfNoSpecifiedTests=false -Dgolden.write=v6} (v1 was written without one; from v5 on in
     * the fingerprint format; from v6 on reshaped from 128 to 64 shards).
     */
    @Test
    @EnabledIfSystemProperty(named = "golden.write", matches = "v\\d+")
    void writeFixtures() throws Exception {
        String version = System.getProperty("golden.write");
        assertThat(version).as("v1 was the release without secrets").isNotEqualTo("v1");
        for (Backend backend : Backend.values()) {
            File file = new File(fixture(version, backend));
            assertThat(file).as("fixtures are never rewritten: add a new version").doesNotExist();
            StateFormat format = Integer.parseInt(version.substring(1)) >= 5 ? StateFormat.FINGERPRINTS : StateFormat.BLOOM;
            try (DedupHarness h = DedupHarness.open(GoldenStream.settings(GoldenStream.SECRET.checkValue(), format), backend)) {
                feed(h, GoldenStream.keyed(GoldenStream.BEFORE, GoldenStream.SECRET));
                OperatorSubtaskState savepoint = savepointOf(h);
                if (Integer.parseInt(version.substring(1)) >= 6) {
                    DedupSettings merged = GoldenStream.settings(GoldenStream.SECRET.checkValue(), format, 64);
                    try (DedupHarness reshaped = DedupHarness.open(merged, backend, 1, 0, h.reshaped(merged, lastWatermarkBefore()))) {
                        savepoint = savepointOf(reshaped);
                    }
                }
                OperatorSnapshotUtil.writeStateHandle(savepoint, file.getPath());
            }
        }
    }

    /** What the exact reference decides for the events after the cut, having seen those before it. */
    static Map<Verdict, List<String>> referenceAfterTheCut() {
        ExactDedupReference reference = new ExactDedupReference(GoldenStream.settings());
        for (Object event : GoldenStream.BEFORE) {
            if (event instanceof Impression) {
                reference.offer((Impression) event);
            } else {
                reference.watermark((Long) event);
            }
        }
        Map<Verdict, List<String>> after = new EnumMap<>(Verdict.class);
        for (Verdict verdict : Verdict.values()) {
            after.put(verdict, new ArrayList<>());
        }
        for (Object event : GoldenStream.AFTER) {
            if (event instanceof Impression) {
                Impression impression = (Impression) event;
                after.get(reference.offer(impression)).add(id(impression));
            } else {
                reference.watermark((Long) event);
            }
        }
        after.replaceAll((verdict, ids) -> sorted(ids));
        return after;
    }

    private static void feed(DedupHarness h, List<Object> events) throws Exception {
        for (Object event : events) {
            if (event instanceof Impression) {
                h.process((Impression) event);
            } else {
                h.watermark((Long) event);
            }
        }
    }

    private static String id(Impression i) {
        return i.requestId() + "/" + i.adId() + "@" + i.eventTime();
    }

    private static List<String> ids(List<Impression> impressions) {
        return impressions.stream().map(GoldenSavepointTest::id).toList();
    }

    private static List<String> sorted(List<String> values) {
        List<String> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }
}
