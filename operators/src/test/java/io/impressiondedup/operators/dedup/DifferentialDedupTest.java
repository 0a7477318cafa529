package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.ExactDedupReference.Verdict;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.PageGroup;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintShardMerge;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.fingerprint.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.FalsePositiveBound;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Bloom operator against the exact reference ({@link ExactDedupReference}), record by record, on
 * disordered streams ({@link DisorderedStream}) over many seeds: delays up to and past the allowed
 * lateness, copies crossing midnight with original and new timestamps, a trailing partition. The two
 * run in lockstep: where the operator answers with a false positive, the reference is told, so that
 * both hold the same impressions afterwards. Expected: no false negative (a copy the reference
 * knows passing), no in-time record set aside as late, every late record truly past the allowed
 * lateness and no copy of a live one, and no more false positives than {@link FalsePositiveBound} allows: the
 * chance of each fresh key, from the fill of the filters it meets at that moment under the promised sizing, summed,
 * and a one-in-a-million tail above it. Only filters that fill up answer falsely often enough for that bound to
 * tell a broken sizing, so the {@code over-plan} variant runs one shard several times over its plan at a high FPP:
 * its filters add layers (checked), and dozens of false positives are expected.
 *
 * <p>The reference is keyed on the raw ids, so the {@code keyed} variant, whose impressions are digested
 * under a fingerprint secret as a source with {@code --fingerprint-secret-file} digests them, shows that a
 * secret changes no decision but through false positives.
 *
 * <p>Two sizes ({@link TestSize}): the full size (in {@code mvn verify}, as {@link DifferentialDedupIT}) runs 20 seeds of
 * each variant on the heap and 4 on RocksDB (the {@code keyed} variant 8 and 2, the cached ones 2 on RocksDB and 1 on
 * the heap); the quick size ({@code mvn test}) 4 and 1 (keyed 2 and 1, cached 1 and 1). The restores and the replays
 * after a failure run whole in both. A run is the same at both sizes (the same 3,000-record stream of its seed, the
 * same plan, so the {@code over-plan} variant is as far over its plan and adds as many layers), and its false positives
 * are held against the bound computed from that run's own fills: the quick size only runs fewer runs.
 */
class DifferentialDedupTest {

    private static final long START = Instant.parse("2026-03-26T09:00:00Z").toEpochMilli(); // spans the spring DST shift

    /** The secret of the {@code keyed} variant. */
    private static final FingerprintSecret SECRET = FingerprintSecret.of("differential-test-secret-0123456789".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII));

    /**
     * Named settings: the defaults, the defaults under a fingerprint secret, one shard at FPP 0.1 running about 3.5x over
     * its plan of 120 a day (about 420 unique impressions a day: every filter adds layers, within the shard state cap), hour
     * buckets, a DST zone with the emit policy; and with the page-group cache ({@link PageCache}) the job uses on
     * RocksDB, with RocksDB's 256-byte pages: a tiny one of four groups (nearly every access evicts, most of them dirty)
     * and the default 64 MiB (holds everything; only the flushes before barriers reach state).
     */
    static Map<String, DedupSettings> variants() {
        Map<String, DedupSettings> variants = new java.util.LinkedHashMap<>();
        variants.put("defaults", settings(TimeBuckets.defaults(), 100_000, 0.001, LatePolicy.DEAD_LETTER));
        // As a job with a secret has it: digests keyed, and new filters hash ad ids with the secret's key.
        DedupPlan defaults = variants.get("defaults").plan();
        variants.put("keyed", DedupSettings.builder().plan(defaults.withFingerprintScheme(defaults.fingerprintScheme().withAdIdsKeyed(true)))
                .fingerprintCheck(SECRET.checkValue()).build());
        variants.put("over-plan", DedupSettings.builder().plan(DedupPlan.builder().capacityPerBucket(OVER_PLAN_CAPACITY).shards(1)
                .fpp(0.1).build()).latePolicy(LatePolicy.DEAD_LETTER).build());
        variants.put("fingerprints", inFormat(variants.get("defaults"), StateFormat.FINGERPRINTS));
        variants.put("fingerprints-over-plan", inFormat(variants.get("over-plan"), StateFormat.FINGERPRINTS));
        variants.put("hour-buckets-no-lateness", settings(
                new TimeBuckets(Duration.ofHours(1), Duration.ofHours(20), Duration.ZERO, ZoneOffset.UTC), 20_000, 0.001, LatePolicy.DROP));
        variants.put("paris-emit", settings(
                new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), Duration.ofHours(10), ZoneId.of("Europe/Paris")), 5_000, 0.001,
                LatePolicy.EMIT));
        DedupPlan rocksdbPages = DedupPlan.builder().capacityPerBucket(100_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                .pageBytes(256).build();
        variants.put("tiny-cache", DedupSettings.builder().plan(rocksdbPages)
                .pageCacheBytes(4 * DedupSettings.pageCacheBytesPerGroup(rocksdbPages)).build());
        variants.put("default-cache", DedupSettings.builder().plan(rocksdbPages)
                .pageCacheBytes(DedupSettings.DEFAULT_ROCKSDB_PAGE_CACHE_BYTES).build());
        DedupPlan fingerprintPages = inFormat(variants.get("tiny-cache"), StateFormat.FINGERPRINTS).plan();
        variants.put("fingerprints-tiny-cache", DedupSettings.builder().plan(fingerprintPages)
                .pageCacheBytes(4 * PageCache.bytesPerFingerprintPage(fingerprintPages)).build());
        variants.put("fingerprints-default-cache", DedupSettings.builder().plan(fingerprintPages)
                .pageCacheBytes(DedupSettings.DEFAULT_ROCKSDB_PAGE_CACHE_BYTES).build());
        return variants;
    }

    /** {@code settings} with new buckets in {@code format}. */
    static DedupSettings inFormat(DedupSettings settings, StateFormat format) {
        DedupPlan plan = settings.plan();
        return DedupSettings.builder().plan(DedupPlan.builder().capacityPerBucket(plan.capacityPerBucket()).shards(plan.shards())
                .fpp(plan.fpp()).timeBuckets(plan.timeBuckets()).fingerprintScheme(plan.fingerprintScheme()).pageBytes(plan.pageBytes())
                .shardStateCap(plan.shardStateCap()).stateFormat(format).build()).latePolicy(settings.latePolicy())
                .pageCacheBytes(settings.pageCacheBytes()).build();
    }

    private static boolean overPlan(String variant) {
        return variant.endsWith("over-plan");
    }

    /** The {@code over-plan} variant's planned unique impressions per day, on one shard. */
    static final long OVER_PLAN_CAPACITY = 120;

    private static boolean cached(String variant) {
        return variant.endsWith("-cache");
    }

    private static DedupSettings settings(TimeBuckets buckets, long capacity, double fpp, LatePolicy policy) {
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(capacity).shards(DedupHarness.MAX_PARALLELISM).fpp(fpp).timeBuckets(buckets).build())
                .latePolicy(policy)
                .build();
    }

    static Stream<Arguments> runs() {
        TestSize size = TestSize.current();
        return variants().keySet().stream().flatMap(variant -> {
            if (cached(variant)) { // the cache is for RocksDB; once on the heap for the copies it keeps there
                return Stream.concat(
                        IntStream.range(0, size.pick(1, 2)).mapToObj(seed -> Arguments.of(variant, Backend.ROCKSDB, 200 + seed)),
                        Stream.of(Arguments.of(variant, Backend.HASHMAP, 202)));
            }
            boolean keyed = variant.equals("keyed") || variant.equals("fingerprints"); // the defaults again: fewer seeds
            return Stream.concat(
                    IntStream.range(0, keyed ? size.pick(2, 8) : size.pick(4, 20)).mapToObj(seed -> Arguments.of(variant, Backend.HASHMAP, seed)),
                    IntStream.range(0, keyed ? size.pick(1, 2) : size.pick(1, 4)).mapToObj(seed -> Arguments.of(variant, Backend.ROCKSDB, 100 + seed)));
        });
    }

    @ParameterizedTest(name = "{0} on {1}, seed {2}")
    @MethodSource("runs")
    void theOperatorDecidesAsTheExactReferenceButForFalsePositivesWithinTheFpp(String variant, Backend backend, int seed) throws Exception {
        DedupSettings settings = variants().get(variant);
        List<Object> events = stream(variant, settings, seed);
        Lockstep lockstep = new Lockstep(settings);
        try (DedupHarness h = DedupHarness.open(settings, backend)) {
            lockstep.feed(List.of(h), 1, events);
            if (variant.equals("over-plan")) {
                assertThat(h.counter(DedupMetrics.FILTER_EXPANSIONS)).as("layers added").isGreaterThanOrEqualTo(4);
                assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).as("insertions refused growth by the shard state cap").isZero();
                assertLayersSizedAsPromised(h, settings, events);
            }
            if (variant.equals("fingerprints-over-plan")) {
                assertThat(h.counter(DedupMetrics.FILTER_EXPANSIONS)).as("bands opened").isGreaterThanOrEqualTo(4);
                assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).as("inserts past the last band").isZero();
            }
        }
        lockstep.assertAgreement(settings);
    }

    /**
     * Every layer of the filters in state has the geometry {@link FalsePositiveBound} promises (the FPP split over the
     * buckets, halved per layer): the count of false positives alone cannot tell a growth layer sized at twice its FPP.
     */
    private static void assertLayersSizedAsPromised(DedupHarness h, DedupSettings settings, List<Object> events) throws Exception {
        h.snapshot(1); // writes the directory back to state
        Impression any = (Impression) events.stream().filter(Impression.class::isInstance).findFirst().orElseThrow();
        BucketFilters directory = h.storedDirectory(h.shardKeyOf(any)); // the variant's one shard
        FalsePositiveBound promise = new FalsePositiveBound(settings.plan());
        int growthLayers = 0;
        for (int i = 0; i < directory.size(); i++) {
            List<BloomLayer> layers = ((ScalableBloomFilter) directory.filterAt(i)).layers();
            for (int layer = 0; layer < layers.size(); layer++) {
                assertThat(layers.get(layer).geometry()).as("layer %s of bucket %s", layer, directory.bucketAt(i))
                        .isEqualTo(promise.promisedLayerGeometry(layer));
            }
            growthLayers += layers.size() - 1;
        }
        assertThat(growthLayers).as("growth layers in state").isPositive();
    }

    static Stream<Arguments> restores() {
        return Stream.concat(
                Stream.of(Backend.values()).flatMap(b -> Stream.of(Arguments.of("defaults", b, 7), Arguments.of("defaults", b, 8),
                        Arguments.of("keyed", b, 9))),
                Stream.of(Arguments.of("tiny-cache", Backend.ROCKSDB, 10), Arguments.of("default-cache", Backend.ROCKSDB, 11),
                        Arguments.of("fingerprints-tiny-cache", Backend.ROCKSDB, 24), Arguments.of("fingerprints-tiny-cache", Backend.HASHMAP, 25)));
    }

    /** The same, with a snapshot at parallelism 2 in the middle restored at parallelism 3. */
    @ParameterizedTest(name = "{0} on {1}, seed {2}")
    @MethodSource("restores")
    void theOperatorDecidesAsTheExactReferenceAcrossARestoreThatRescalesTwoToThree(String variant, Backend backend, int seed)
            throws Exception {
        DedupSettings settings = variants().get(variant);
        List<Object> events = stream(variant, settings, seed);
        int cut = events.size() / 2;
        Lockstep lockstep = new Lockstep(settings);

        List<DedupHarness> three = feedTwoThenRestoreAsThree(settings, settings, backend, lockstep, events.subList(0, cut));
        lockstep.feed(three, 3, events.subList(cut, events.size()));
        for (DedupHarness h : three) {
            h.close();
        }
        lockstep.assertAgreement(settings);
    }

    static Stream<Arguments> formatSwitches() {
        return Stream.of(Backend.values()).flatMap(b -> Stream.of(
                Arguments.of("defaults", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 15),
                Arguments.of("defaults", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 16),
                Arguments.of("over-plan", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 17),
                Arguments.of("over-plan", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 18),
                Arguments.of("tiny-cache", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 26),
                Arguments.of("tiny-cache", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 27)));
    }

    /**
     * A restore that switches {@code --state-format}, rescaling 2 to 3: the buckets written before it stay in their
     * format, those created after it take the new one, and a record meets both while the old ones are live (the stream's
     * five days expire the old buckets after the switch). Every decision is still the reference's, and the false
     * positives stay within the bound computed with each bucket's own format.
     */
    @ParameterizedTest(name = "{0}, {1} to {2} on {3}, seed {4}")
    @MethodSource("formatSwitches")
    void theOperatorDecidesAsTheExactReferenceAcrossARestoreThatSwitchesTheStateFormat(String variant, StateFormat from, StateFormat to,
            Backend backend, int seed) throws Exception {
        DedupSettings before = inFormat(variants().get(variant), from);
        DedupSettings after = inFormat(variants().get(variant), to);
        List<Object> events = stream(variant, before, seed);
        int cut = events.size() * 2 / 5;
        Lockstep lockstep = new Lockstep(before);

        List<DedupHarness> three = feedTwoThenRestoreAsThree(before, after, backend, lockstep, events.subList(0, cut));
        lockstep.format = to;
        lockstep.feed(three, 3, events.subList(cut, events.size()));
        long expired = 0;
        for (DedupHarness h : three) {
            expired += h.counter(DedupMetrics.BUCKETS_EXPIRED);
            h.close();
        }
        assertThat(lockstep.bucketsIn(from)).as("buckets created before the switch").isPositive();
        assertThat(lockstep.bucketsIn(to)).as("buckets created after it").isPositive();
        assertThat(expired).as("buckets expired after the switch").isPositive();
        assertThat(lockstep.checksAcrossFormats).as("fresh keys checked against buckets of both formats").isPositive();
        lockstep.assertAgreement(before);
    }

    static Stream<Arguments> reshapes() {
        return Stream.of(Backend.values()).flatMap(b -> Stream.of(
                Arguments.of("fingerprints", 128, 64, b, 19),
                Arguments.of("fingerprints-over-plan-4", 4, 1, b, 20),
                Arguments.of("defaults", 64, 128, b, 21),
                Arguments.of("fingerprints-over-plan-4", 2, 4, b, 22)));
    }

    /**
     * A savepoint reshaped as {@code dedup-tools reshape} does ({@link FingerprintShardMerge} to fewer shards, a copy of
     * each shard's state to each of its children to more), then restored under the new shard count: every decision is
     * still the reference's, and the false positives stay within the bound of each bucket's own plan and fill (a merged
     * bucket's FPP per lookup is its part's, unchanged by the merge).
     */
    @ParameterizedTest(name = "{0}, {1} to {2} shards on {3}, seed {4}")
    @MethodSource("reshapes")
    void theOperatorDecidesAsTheExactReferenceAcrossAReshapeToFewerOrMoreShards(String variant, int from, int to, Backend backend, int seed)
            throws Exception {
        DedupSettings before = withShards(variants().get(variant.replace("-4", "")), from);
        DedupSettings after = withShards(variants().get(variant.replace("-4", "")), to);
        List<Object> events = stream(variant, before, seed);
        int cut = events.size() / 2;
        long lastWatermark = events.subList(0, cut).stream().filter(Long.class::isInstance).mapToLong(Long.class::cast).max().orElseThrow();
        Lockstep lockstep = new Lockstep(before);

        Map<Integer, BucketFilters> directories = new HashMap<>();
        Map<Integer, Map<Long, PageGroup>> groups = new HashMap<>();
        Map<Integer, Map<Long, FingerprintPage>> pages = new HashMap<>();
        ShardKeys keysBefore = new ShardKeys(from, DedupHarness.MAX_PARALLELISM);
        try (DedupHarness h = DedupHarness.open(before, backend)) {
            lockstep.feed(List.of(h), 1, events.subList(0, cut));
            h.snapshot(1); // writes the directories back to state
            for (int key : h.shardKeysWithState()) {
                int shard = keysBefore.shardOf(key);
                directories.put(shard, h.storedDirectory(key));
                groups.put(shard, h.storedPages(key));
                pages.put(shard, h.storedFingerprintPages(key));
            }
        }
        boolean merged = to < from;
        int k = merged ? from / to : to / from;
        ShardKeys keysAfter = new ShardKeys(to, DedupHarness.MAX_PARALLELISM);
        OperatorSubtaskState reshaped;
        try (DedupHarness written = DedupHarness.open(after, backend)) {
            Map<Integer, BucketFilters> newDirectories = new HashMap<>();
            Map<Integer, Map<Long, PageGroup>> newGroups = new HashMap<>();
            Map<Integer, Map<Long, FingerprintPage>> newPages = new HashMap<>();
            for (int shard : directories.keySet()) {
                if (merged) {
                    assertThat(FingerprintShardMerge.refusal(shard, directories.get(shard))).isNull();
                    int parent = FingerprintShardMerge.parentOf(shard, k);
                    BucketFilters part = FingerprintShardMerge.asPart(shard, directories.get(shard), k);
                    newDirectories.merge(parent, part, FingerprintShardMerge::merge);
                    newGroups.computeIfAbsent(parent, s -> new HashMap<>()).putAll(groups.get(shard));
                    pages.get(shard).forEach((key, page) -> newPages.computeIfAbsent(parent, s -> new HashMap<>())
                            .put(FingerprintShardMerge.pageKeyInParent(shard, key, k), page));
                } else {
                    for (int child = shard * k; child < shard * k + k; child++) {
                        newDirectories.put(child, directories.get(shard).copy());
                        newGroups.put(child, groups.get(shard));
                        newPages.put(child, pages.get(shard));
                    }
                }
            }
            for (int shard : newDirectories.keySet()) {
                written.writeShardState(keysAfter.keyOf(shard), newDirectories.get(shard), newGroups.getOrDefault(shard, Map.of()),
                        newPages.getOrDefault(shard, Map.of()));
            }
            written.watermark(lastWatermark); // the lateness watermark the tools keep from the savepoint
            reshaped = written.snapshot(1);
        }
        lockstep.reshape(after, merged, k);
        try (DedupHarness h = DedupHarness.open(after, backend, 1, 0, reshaped)) {
            lockstep.feed(List.of(h), 1, events.subList(cut, events.size()));
            if (variant.contains("over-plan")) {
                assertThat(h.counter(DedupMetrics.FILTER_EXPANSIONS)).as("bands opened after the reshape").isPositive();
            }
        }
        lockstep.assertAgreement(before);
    }

    /** {@code settings} with {@code shards} shards. */
    private static DedupSettings withShards(DedupSettings settings, int shards) {
        DedupPlan plan = settings.plan();
        return DedupSettings.builder().plan(DedupPlan.builder().capacityPerBucket(plan.capacityPerBucket()).shards(shards)
                .fpp(plan.fpp()).timeBuckets(plan.timeBuckets()).fingerprintScheme(plan.fingerprintScheme()).pageBytes(plan.pageBytes())
                .shardStateCap(plan.shardStateCap()).stateFormat(plan.stateFormat()).build()).latePolicy(settings.latePolicy()).build();
    }

    /**
     * Feeds {@code firstPart} to two subtasks under {@code before}, snapshots them, and restores the state as three
     * subtasks under {@code after}, which it returns open.
     */
    private static List<DedupHarness> feedTwoThenRestoreAsThree(DedupSettings before, DedupSettings after, Backend backend,
            Lockstep lockstep, List<Object> firstPart) throws Exception {
        List<DedupHarness> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(DedupHarness.open(before, backend, 2, i, null));
        }
        lockstep.feed(two, 2, firstPart);
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[2];
        for (int i = 0; i < 2; i++) {
            snapshots[i] = two.get(i).snapshot(1);
            two.get(i).close();
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(snapshots);
        List<DedupHarness> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            three.add(DedupHarness.open(after, backend, 3, i,
                    AbstractStreamOperatorTestHarness.repartitionOperatorState(merged, DedupHarness.MAX_PARALLELISM, 2, 3, i)));
        }
        return three;
    }

    static Stream<Arguments> failures() {
        return Stream.of(Arguments.of("tiny-cache", 12), Arguments.of("default-cache", 13), Arguments.of("defaults", 14),
                Arguments.of("fingerprints-tiny-cache", 23));
    }

    /**
     * A failure after a checkpoint, on RocksDB: the operator checkpoints, processes the rest of the stream (with the
     * cache, evicting and dirtying groups), and is thrown away without another snapshot; a new one restored from the
     * checkpoint gets the records after it again. Every decision of the replay must still be the reference's: the
     * checkpoint holds every page written before its barrier, and nothing written after it.
     */
    @ParameterizedTest(name = "{0}, seed {1}")
    @MethodSource("failures")
    void aReplayFromTheLastCheckpointAfterAFailureDecidesAsTheExactReference(String variant, int seed) throws Exception {
        DedupSettings settings = variants().get(variant);
        List<Object> events = stream(variant, settings, seed);
        int cut = events.size() / 2;
        Lockstep lockstep = new Lockstep(settings);
        OperatorSubtaskState checkpoint;
        try (DedupHarness failing = DedupHarness.open(settings, Backend.ROCKSDB)) {
            lockstep.feed(List.of(failing), 1, events.subList(0, cut));
            checkpoint = failing.snapshot(1);
            for (Object event : events.subList(cut, events.size())) { // processed, then lost with the failure
                if (event instanceof Long) {
                    failing.watermark((Long) event);
                } else {
                    failing.process((Impression) event);
                }
            }
            if (variant.endsWith("tiny-cache")) {
                assertThat(failing.counter(DedupMetrics.PAGE_CACHE_DIRTY_EVICTIONS)).as("dirty evictions").isPositive();
            }
        }
        try (DedupHarness restored = DedupHarness.open(settings, Backend.ROCKSDB, 1, 0, checkpoint)) {
            lockstep.feed(List.of(restored), 1, events.subList(cut, events.size()));
        }
        lockstep.assertAgreement(settings);
    }

    /**
     * Five days of event time; delays drawn up to 1.5 x the allowed lateness + 3 h, so some are past it. Digested under
     * the secret in the {@code keyed} variant.
     */
    private static List<Object> stream(String variant, DedupSettings settings, int seed) {
        long lateness = settings.plan().timeBuckets().allowedLateness().toMillis();
        List<Object> events = DisorderedStream.generate(seed, 3_000, START, 5 * DAY, lateness + lateness / 2 + 3 * HOUR);
        return variant.equals("keyed") ? TestImpressions.keyedBy(SECRET, events) : events;
    }

    /** What a {@link Lockstep} knew of the buckets before a reshape, and which new shard carries which of them on. */
    private record Prior(DedupPlan plan, FalsePositiveBound bound, Map<Integer, TreeMap<Long, Long>> fills,
            Map<Integer, Map<Long, StateFormat>> formats, Map<Integer, Set<Long>> inherited) {}

    /** Feeds the operator(s) and the reference record by record, classifying each disagreement. */
    private static final class Lockstep {
        final ExactDedupReference reference;
        final Map<Verdict, Long> referenceVerdicts = new EnumMap<>(Verdict.class);
        final List<String> falseNegatives = new ArrayList<>();
        final List<String> inTimeSetAsideAsLate = new ArrayList<>();
        final List<String> otherDisagreements = new ArrayList<>();
        DedupPlan plan;
        final TimeBuckets buckets;
        final FalsePositiveBound bound;
        /** Per shard, per bucket: the impressions the operator inserted, i.e. its filters' fill. */
        Map<Integer, TreeMap<Long, Long>> fills = new HashMap<>();
        /** Per shard, per bucket: the format it was created in (the format selected at its first insert). */
        Map<Integer, Map<Long, StateFormat>> formats = new HashMap<>();
        /** The format new buckets are created in now. */
        StateFormat format;
        /** Fresh keys checked against buckets of both formats at once. */
        long checksAcrossFormats;
        /** The buckets as they were before a reshape, which the reshaped shards carry on; {@code null} before one. */
        Prior prior;
        final LatePolicy latePolicy;
        /**
         * Keys the operator dropped falsely: one unique impression lost. A copy of it meets the same bits again, so it
         * is neither a fresh key nor another false positive (the verifier counts lost unique impressions the same way).
         */
        final Set<String> falselyDropped = new HashSet<>();
        long falsePositives;
        long watermark = Long.MIN_VALUE;

        Lockstep(DedupSettings settings) {
            this.reference = new ExactDedupReference(settings);
            this.plan = settings.plan();
            this.buckets = plan.timeBuckets().copy();
            this.bound = new FalsePositiveBound(plan);
            this.latePolicy = settings.latePolicy();
            this.format = plan.stateFormat();
        }

        /**
         * The state is reshaped to {@code after}'s shard count, {@code k} times fewer ({@code merged}) or more: from now on
         * a fresh key meets the buckets its new shard carries over with the fill and plan they had (a merged bucket: its
         * part's, the old shard its digest named; a copied one: its parent's, counting every child's inserts), and new
         * buckets with the new plan's.
         */
        void reshape(DedupSettings after, boolean merged, int k) {
            Map<Integer, Set<Long>> inherited = new HashMap<>();
            for (Map.Entry<Integer, TreeMap<Long, Long>> entry : fills.entrySet()) {
                int oldShard = entry.getKey();
                if (merged) {
                    inherited.computeIfAbsent(oldShard / k, s -> new HashSet<>()).addAll(entry.getValue().keySet());
                } else {
                    for (int child = 0; child < k; child++) {
                        inherited.computeIfAbsent(oldShard * k + child, s -> new HashSet<>()).addAll(entry.getValue().keySet());
                    }
                }
            }
            prior = new Prior(plan, new FalsePositiveBound(plan), fills, formats, inherited);
            plan = after.plan();
            fills = new HashMap<>();
            formats = new HashMap<>();
            format = plan.stateFormat();
        }

        long bucketsIn(StateFormat wanted) {
            return formats.values().stream().flatMap(m -> m.values().stream()).filter(f -> f == wanted).count();
        }

        void feed(List<DedupHarness> subtasks, int parallelism, List<Object> events) throws Exception {
            for (Object event : events) {
                if (event instanceof Long) {
                    watermark = Math.max(watermark, (Long) event);
                    reference.watermark((Long) event);
                    for (DedupHarness h : subtasks) {
                        h.watermark((Long) event);
                    }
                    continue;
                }
                Impression impression = (Impression) event;
                int key = subtasks.get(0).shardKeyOf(impression);
                DedupHarness h = subtasks.get(KeyGroupRangeAssignment.assignKeyToParallelOperator(key, DedupHarness.MAX_PARALLELISM, parallelism));
                Verdict expected = reference.decide(impression);
                int shard = FingerprintScheme.shardOf(impression.digestHigh(), plan.shards());
                TreeMap<Long, Long> shardFills = fills.computeIfAbsent(shard, s -> new TreeMap<>());
                Map<Long, StateFormat> shardFormats = formats.computeIfAbsent(shard, s -> new HashMap<>());
                int priorShard = prior == null ? -1 : FingerprintScheme.shardOf(impression.digestHigh(), prior.plan.shards());
                Set<Long> inheritedHere = prior == null ? Set.of() : prior.inherited.getOrDefault(shard, Set.of());
                long t = impression.eventTime();
                String identity = impression.requestId() + "/" + impression.adId();
                boolean fresh = (expected == Verdict.UNIQUE || expected == Verdict.LATE) && !falselyDropped.contains(identity);
                if (fresh) { // a fresh key, checked against the filters of its range, each by the plan it was sized under
                    double chance = 0;
                    Set<StateFormat> met = new HashSet<>();
                    for (long bucket = buckets.firstBucketToCheck(t); bucket <= buckets.lastBucketToCheck(t); bucket++) {
                        if (inheritedHere.contains(bucket)) {
                            StateFormat format = prior.formats.get(priorShard).get(bucket);
                            chance += prior.bound.promisedChance(prior.fills.get(priorShard).getOrDefault(bucket, 0L), format);
                            met.add(format);
                        } else if (shardFills.containsKey(bucket)) {
                            chance += bound.promisedChance(shardFills.get(bucket), shardFormats.get(bucket));
                            met.add(shardFormats.get(bucket));
                        }
                    }
                    bound.addFreshKeyOfChance(chance);
                    if (met.size() > 1) {
                        checksAcrossFormats++;
                    }
                }
                Verdict actual = decision(h, impression);
                long inserted = actual == Verdict.UNIQUE ? buckets.bucketOf(t)
                        : actual == Verdict.LATE && latePolicy == LatePolicy.EMIT ? buckets.lateInsertBucket(t, watermark)
                        : TimeBuckets.NO_BUCKET;
                if (inserted != TimeBuckets.NO_BUCKET && inheritedHere.contains(inserted)) {
                    // Into a bucket the reshape carried over: counted with its part (a merge) or its parent (a copy).
                    prior.fills.get(priorShard).merge(inserted, 1L, Long::sum);
                } else if (inserted != TimeBuckets.NO_BUCKET) {
                    shardFills.merge(inserted, 1L, Long::sum);
                    shardFormats.putIfAbsent(inserted, format);
                }
                referenceVerdicts.merge(expected, 1L, Long::sum);
                reference.apply(impression, actual);
                if (actual == expected) {
                    continue;
                }
                String what = expected + " -> " + actual + ": " + impression + " at watermark " + watermark;
                if (actual == Verdict.UNIQUE || (actual == Verdict.LATE && expected == Verdict.LATE_DUPLICATE)) {
                    falseNegatives.add(what);
                } else if (actual == Verdict.LATE && expected == Verdict.UNIQUE) {
                    inTimeSetAsideAsLate.add(what);
                } else if ((expected == Verdict.UNIQUE && actual == Verdict.DUPLICATE)
                        || (expected == Verdict.LATE && actual == Verdict.LATE_DUPLICATE)) {
                    if (fresh) {
                        falsePositives++;
                        falselyDropped.add(identity);
                    }
                } else {
                    otherDisagreements.add(what);
                }
            }
        }

        /** What the operator did with the record just fed, read from its counters. */
        private static Verdict decision(DedupHarness h, Impression impression) throws Exception {
            long unique = h.counter(DedupMetrics.UNIQUE);
            long duplicates = h.counter(DedupMetrics.DUPLICATES);
            long lateDuplicates = h.counter(DedupMetrics.LATE_DUPLICATES);
            long late = h.counter(DedupMetrics.LATE);
            h.process(impression);
            if (h.counter(DedupMetrics.UNIQUE) > unique) {
                return Verdict.UNIQUE;
            }
            if (h.counter(DedupMetrics.LATE_DUPLICATES) > lateDuplicates) {
                return Verdict.LATE_DUPLICATE;
            }
            if (h.counter(DedupMetrics.DUPLICATES) > duplicates) {
                return Verdict.DUPLICATE;
            }
            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(late + 1);
            return Verdict.LATE;
        }

        void assertAgreement(DedupSettings settings) {
            System.out.println(bound.describe(falsePositives));
            // The stream really exercises every verdict.
            assertThat(referenceVerdicts).containsKeys(Verdict.UNIQUE, Verdict.DUPLICATE, Verdict.LATE_DUPLICATE, Verdict.LATE);
            assertThat(falseNegatives).as("copies that passed").isEmpty();
            assertThat(inTimeSetAsideAsLate).as("records within the allowed lateness set aside as late").isEmpty();
            assertThat(otherDisagreements).isEmpty();
            assertThat(falsePositives).as(bound.describe(falsePositives)).isLessThanOrEqualTo(bound.limit());
        }
    }
}
