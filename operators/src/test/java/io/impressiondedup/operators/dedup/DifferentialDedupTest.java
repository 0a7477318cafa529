package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.operators.dedup.ExactDedupReference.Verdict;
import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.operators.dedup.store.PageCacheBudget;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.FalsePositiveBound;
import io.impressiondedup.state.reshape.ReshapeRefusedException;
import io.impressiondedup.state.reshape.ShardReshape;
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
 * <p>Two sizes ({@link TestSize}): the full size (in {@code mvn verify}, as {@code DifferentialDedupIT} in the module
 * operators-it) runs 20 seeds of each variant on the heap and 4 on RocksDB (the {@code keyed} variant 8 and 2, the
 * cached ones 2 on RocksDB and 1 on the heap), 10 restores, 12 state format switches, 6 reshape chains and 4 replays
 * after a failure; the quick size
 * ({@code mvn test}) 2 and 1 seeds (keyed 2 and 1, cached 1 and 1) and a sample of each of the others that takes each
 * path once (both formats, both backends, each way of a format switch or a reshape, the tiny cache's dirty evictions),
 * named in their sources. A case is the same at both sizes (the same 3,000-record stream of its seed, the same plan, so
 * the {@code over-plan} variant is as far over its plan and adds as many layers), and its false positives are held
 * against the bound computed from that case's own fills: the quick size only runs fewer cases. {@code mvn verify} runs
 * this class, the quick size, in its test phase, so {@code DifferentialDedupIT} runs only the cases of the full size
 * beyond it: there, each case runs exactly once.
 */
class DifferentialDedupTest {

    private static final long START = Instant.parse("2026-03-26T09:00:00Z").toEpochMilli(); // spans the spring DST shift

    /**
     * The secret of the {@code keyed} variant: the golden savepoints', whose slow check value the test JVM derives
     * once.
     */
    private static final FingerprintSecret SECRET = GoldenStream.SECRET;

    /**
     * Named settings: the defaults, the defaults under a fingerprint secret, one shard at FPP 0.1 running about 3.5x over
     * its plan of 120 a day (about 420 unique impressions a day: every filter adds layers, within the shard state cap), hour
     * buckets, a DST zone with the emit policy; and with the page-group cache ({@code PageCache}) the job uses on
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
                .pageCacheBudget(PageCacheBudget.shareOfTaskHeap()).build());
        DedupPlan fingerprintPages = inFormat(variants.get("tiny-cache"), StateFormat.FINGERPRINTS).plan();
        variants.put("fingerprints-tiny-cache", DedupSettings.builder().plan(fingerprintPages)
                .pageCacheBytes(4 * PageCacheBudget.bytesPerFingerprintPage(fingerprintPages)).build());
        variants.put("fingerprints-default-cache", DedupSettings.builder().plan(fingerprintPages)
                .pageCacheBudget(PageCacheBudget.shareOfTaskHeap()).build());
        // A heap cache of 8 pages and an off-heap tier of 64 KiB (2 pages of managed memory): most pages pass through the tier
        // and many are evicted from it, dirty ones to state.
        variants.put("tier-cache", DedupSettings.builder().plan(rocksdbPages)
                .pageCacheBudget(PageCacheBudget.ofBytes(8 * DedupSettings.pageCacheBytesPerGroup(rocksdbPages)).withTierBytes(TIER_BYTES))
                .build());
        variants.put("fingerprints-tier-cache", DedupSettings.builder().plan(fingerprintPages)
                .pageCacheBudget(PageCacheBudget.ofBytes(8 * PageCacheBudget.bytesPerFingerprintPage(fingerprintPages))
                        .withTierBytes(TIER_BYTES)).build());
        return variants;
    }

    /** {@code settings} with new buckets in {@code format}. */
    static DedupSettings inFormat(DedupSettings settings, StateFormat format) {
        DedupPlan plan = settings.plan();
        return DedupSettings.builder().plan(DedupPlan.builder().capacityPerBucket(plan.capacityPerBucket()).shards(plan.shards())
                .fpp(plan.fpp()).timeBuckets(plan.timeBuckets()).fingerprintScheme(plan.fingerprintScheme()).pageBytes(plan.pageBytes())
                .shardStateCap(plan.shardStateCap()).stateFormat(format).build()).latePolicy(settings.latePolicy())
                .pageCacheBudget(settings.pageCacheBudget()).build();
    }

    private static boolean overPlan(String variant) {
        return variant.endsWith("over-plan");
    }

    /** The off-heap tier of the {@code tier-cache} variants: two pages of the harness's managed memory. */
    static final long TIER_BYTES = 64 << 10;

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
        return runsOfSize(TestSize.current());
    }

    /** The runs of {@code size} (class comment). */
    static Stream<Arguments> runsOfSize(TestSize size) {
        return variants().keySet().stream().flatMap(variant -> {
            if (cached(variant)) { // the cache is for RocksDB; once on the heap for the copies it keeps there
                return Stream.concat(
                        IntStream.range(0, size.pick(1, 2)).mapToObj(seed -> Arguments.of(variant, Backend.ROCKSDB, 200 + seed)),
                        Stream.of(Arguments.of(variant, Backend.HASHMAP, 202)));
            }
            boolean keyed = variant.equals("keyed") || variant.equals("fingerprints"); // the defaults again: fewer seeds
            return Stream.concat(
                    IntStream.range(0, keyed ? size.pick(2, 8) : size.pick(2, 20)).mapToObj(seed -> Arguments.of(variant, Backend.HASHMAP, seed)),
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
        return restoresOfSize(TestSize.current());
    }

    /**
     * The restores of {@code size}: at the quick size the Bloom format's tiny cache on RocksDB and the fingerprint
     * format's on the heap.
     */
    static Stream<Arguments> restoresOfSize(TestSize size) {
        return ofSize(size, Stream.concat(
                Stream.of(Backend.values()).flatMap(b -> Stream.of(Arguments.of("defaults", b, 7), Arguments.of("defaults", b, 8),
                        Arguments.of("keyed", b, 9))),
                Stream.of(Arguments.of("tiny-cache", Backend.ROCKSDB, 10), Arguments.of("default-cache", Backend.ROCKSDB, 11),
                        Arguments.of("fingerprints-tiny-cache", Backend.ROCKSDB, 24), Arguments.of("fingerprints-tiny-cache", Backend.HASHMAP, 25),
                        Arguments.of("tier-cache", Backend.ROCKSDB, 26), Arguments.of("fingerprints-tier-cache", Backend.ROCKSDB, 27))),
                Set.of(6, 9, 10, 11));
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
        return formatSwitchesOfSize(TestSize.current());
    }

    /**
     * The format switches of {@code size}: at the quick size one each way, fingerprints to Bloom over plan on the heap,
     * Bloom to fingerprints through the tiny cache on RocksDB.
     */
    static Stream<Arguments> formatSwitchesOfSize(TestSize size) {
        return ofSize(size, Stream.of(Backend.values()).flatMap(b -> Stream.of(
                Arguments.of("defaults", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 15),
                Arguments.of("defaults", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 16),
                Arguments.of("over-plan", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 17),
                Arguments.of("over-plan", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 18),
                Arguments.of("tiny-cache", StateFormat.BLOOM, StateFormat.FINGERPRINTS, b, 26),
                Arguments.of("tiny-cache", StateFormat.FINGERPRINTS, StateFormat.BLOOM, b, 27))), Set.of(3, 10));
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
        lockstep.restoreUnder(after.plan());
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

    static Stream<Arguments> reshapeChains() {
        return reshapeChainsOfSize(TestSize.current());
    }

    /**
     * The reshape chains of {@code size}: at the quick size the fingerprint format's down and up on RocksDB, the Bloom
     * format's up on the heap.
     */
    static Stream<Arguments> reshapeChainsOfSize(TestSize size) {
        return ofSize(size, Stream.of(Backend.values()).flatMap(b -> Stream.of(
                Arguments.of("fingerprints", List.of(128, 64, 128, 32), b, 19),
                Arguments.of("fingerprints-over-plan-4", List.of(4, 1, 4, 2), b, 20),
                Arguments.of("paris-emit", List.of(8, 24, 48, 96), b, 21))), Set.of(2, 3));
    }

    /**
     * A chain of reshapes, each done as {@code dedup-tools reshape} does it ({@link ShardReshape}, the tool's own rules: to
     * fewer shards each old shard becomes a part of its parent, to more each child gets its parent's filters or the parts of
     * its requests), with records between them and the state restored under each new shard count: down, up and down again
     * (factors 2 and 4) in the fingerprint format, and up, up, up (factors 3, 2, 2) in the Bloom format, whose every way down is refused before
     * anything is written, naming the bucket. Every decision is still the reference's, and the false positives stay within
     * the bound of what each fresh key meets: for each bucket, the values inserted by the records of its cell, under the plan
     * they were created with ({@link StoreCell}: copies of a wider cell counted as copies, parts as parts).
     */
    @ParameterizedTest(name = "{0}, shards {1} on {2}, seed {3}")
    @MethodSource("reshapeChains")
    void theOperatorDecidesAsTheExactReferenceAcrossAChainOfReshapes(String variant, List<Integer> shardCounts, Backend backend, int seed)
            throws Exception {
        DedupSettings first = withShards(variants().get(variant.replace("-4", "")), shardCounts.get(0));
        List<Object> events = stream(variant, first, seed);
        Lockstep lockstep = new Lockstep(first);
        int segments = shardCounts.size();
        OperatorSubtaskState state = null;
        long downsRefused = 0;
        for (int step = 0; step < segments; step++) {
            DedupSettings settings = withShards(first, shardCounts.get(step));
            List<Object> segment = events.subList(events.size() * step / segments, events.size() * (step + 1) / segments);
            try (DedupHarness h = DedupHarness.open(settings, backend, 1, 0, state)) {
                lockstep.feed(List.of(h), 1, segment);
                if (variant.contains("over-plan")) {
                    assertThat(h.counter(DedupMetrics.CAPPED_INSERTIONS)).as("inserts past the shard state cap").isZero();
                }
                if (step + 1 == segments) {
                    break;
                }
                long lastWatermark = Math.max(lockstep.watermark, Long.MIN_VALUE + 1);
                h.snapshot(1); // writes the directories back to state
                if (first.plan().stateFormat() == StateFormat.BLOOM) {
                    downsRefused += assertEveryWayDownIsRefused(h, settings);
                }
                state = h.reshaped(withShards(first, shardCounts.get(step + 1)), lastWatermark);
            }
            lockstep.reshape(withShards(first, shardCounts.get(step + 1)).plan());
        }
        if (first.plan().stateFormat() == StateFormat.BLOOM) {
            assertThat(downsRefused).as("ways down refused").isEqualTo(segments - 1);
        }
        assertThat(lockstep.copiedCells).as("cells copied to more shards").isPositive();
        lockstep.assertAgreement(first);
    }

    /** Each way to half the shards of the state in {@code h} is refused naming a Bloom bucket, before anything is written. */
    private static long assertEveryWayDownIsRefused(DedupHarness h, DedupSettings settings) throws Exception {
        int shards = settings.plan().shards();
        assertThatThrownBy(() -> ShardReshape.plan(shards, shards / 2, h.storedDirectories()))
                .isInstanceOf(ReshapeRefusedException.class).hasMessageContaining("is in the bloom format")
                .hasMessageContaining("--state-format fingerprints").hasMessageContaining("Nothing was written");
        return 1;
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
        return failuresOfSize(TestSize.current());
    }

    /**
     * The replays of {@code size}: at the quick size the Bloom format's through the tiny cache (dirty evictions before
     * the failure).
     */
    static Stream<Arguments> failuresOfSize(TestSize size) {
        return ofSize(size, Stream.of(Arguments.of("tiny-cache", 12), Arguments.of("default-cache", 13), Arguments.of("defaults", 14),
                Arguments.of("fingerprints-tiny-cache", 23), Arguments.of("tier-cache", 28), Arguments.of("fingerprints-tier-cache", 29)),
                Set.of(0, 4, 5));
    }

    /** Every case at the full size; at the quick size, those at the positions {@code quick} of the full size's. */
    private static Stream<Arguments> ofSize(TestSize size, Stream<Arguments> full, Set<Integer> quick) {
        List<Arguments> cases = full.toList();
        return IntStream.range(0, cases.size()).filter(i -> size == TestSize.FULL || quick.contains(i)).mapToObj(cases::get);
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
            if (variant.endsWith("tiny-cache") || variant.endsWith("tier-cache")) {
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

    /**
     * What a fresh key meets of one bucket, modelled apart from the operator: the values inserted by the records of one
     * cell of the digest range (cell {@code cell} of {@code cells} equal cells, whatever the shard count), under the plan
     * the cell's store was created with. A bucket the operator creates is the cell of its shard; a reshape to fewer shards
     * keeps every cell as it is, one to more shards copies a cell wider than the new shards into one cell per new shard
     * (each a copy of the values, taking that shard's inserts from then on), and a record of a cell without a store
     * creates one at the finest cell count of its bucket in its shard (or its whole shard).
     */
    private static final class StoreCell {
        final long bucket;
        final int cell;
        final int cells;
        final FalsePositiveBound bound;
        final StateFormat format;
        long fill;

        StoreCell(long bucket, int cell, int cells, FalsePositiveBound bound, StateFormat format, long fill) {
            this.bucket = bucket;
            this.cell = cell;
            this.cells = cells;
            this.bound = bound;
            this.format = format;
            this.fill = fill;
        }

        boolean holds(long digestHigh) {
            return FingerprintScheme.shardOf(digestHigh, cells) == cell;
        }

        /** Whether the cell lies in shard {@code shard} of {@code shards} (its cell count a multiple of the shards'). */
        boolean inShard(int shard, int shards) {
            return cells % shards == 0 && cell / (cells / shards) == shard;
        }
    }

    /** Feeds the operator(s) and the reference record by record, classifying each disagreement. */
    private static final class Lockstep {
        final ExactDedupReference reference;
        final Map<Verdict, Long> referenceVerdicts = new EnumMap<>(Verdict.class);
        final List<String> falseNegatives = new ArrayList<>();
        final List<String> inTimeSetAsideAsLate = new ArrayList<>();
        final List<String> otherDisagreements = new ArrayList<>();
        DedupPlan plan;
        final TimeBuckets buckets;
        /** The bound of the run; each fresh key's chance is summed from the bounds of the plans of the cells it meets. */
        final FalsePositiveBound bound;
        /** The bound of {@link #plan}, for the cells created under it. */
        FalsePositiveBound planBound;
        /** Per bucket, its stores: what the operator inserted, cell by cell ({@link StoreCell}). */
        final Map<Long, List<StoreCell>> cells = new HashMap<>();
        /** Stores copied into more shards by reshapes. */
        long copiedCells;
        /** Fresh keys checked against buckets of both formats at once. */
        long checksAcrossFormats;
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
            this.planBound = bound;
            this.latePolicy = settings.latePolicy();
        }

        /** The operator runs under {@code next} from now on: new stores take its format and sizing. */
        void restoreUnder(DedupPlan next) {
            plan = next;
            planBound = new FalsePositiveBound(next);
        }

        /**
         * The state is reshaped to {@code next}'s shard count (and restored under it): to more shards, each store of a cell
         * wider than the new shards becomes one copy per new shard within it.
         */
        void reshape(DedupPlan next) {
            int shards = next.shards();
            if (shards > plan.shards()) {
                for (List<StoreCell> stores : cells.values()) {
                    List<StoreCell> split = new ArrayList<>();
                    for (StoreCell store : stores) {
                        if (store.cells % shards == 0) {
                            split.add(store);
                            continue;
                        }
                        assertThat(shards % store.cells).as("cells nest").isZero();
                        int copies = shards / store.cells;
                        for (int i = 0; i < copies; i++) {
                            split.add(new StoreCell(store.bucket, store.cell * copies + i, shards, store.bound, store.format, store.fill));
                        }
                        copiedCells += copies;
                    }
                    stores.clear();
                    stores.addAll(split);
                }
            }
            restoreUnder(next);
        }

        /** The store of {@code bucket} holding a record of {@code digestHigh}, or {@code null}. */
        private StoreCell storeHolding(long bucket, long digestHigh) {
            for (StoreCell store : cells.getOrDefault(bucket, List.of())) {
                if (store.holds(digestHigh)) {
                    return store;
                }
            }
            return null;
        }

        /** Counts an insert of a record of {@code digestHigh} into {@code bucket}, creating its store as the operator would. */
        private void inserted(long bucket, long digestHigh) {
            StoreCell store = storeHolding(bucket, digestHigh);
            if (store == null) {
                int shards = plan.shards();
                int shard = FingerprintScheme.shardOf(digestHigh, shards);
                int finest = shards;
                for (StoreCell other : cells.getOrDefault(bucket, List.of())) {
                    if (other.inShard(shard, shards)) {
                        finest = Math.max(finest, other.cells);
                    }
                }
                store = new StoreCell(bucket, FingerprintScheme.shardOf(digestHigh, finest), finest, planBound, plan.stateFormat(), 0);
                cells.computeIfAbsent(bucket, b -> new ArrayList<>()).add(store);
            }
            store.fill++;
        }

        long bucketsIn(StateFormat wanted) {
            return cells.values().stream().flatMap(List::stream).filter(store -> store.format == wanted).count();
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
                long t = impression.eventTime();
                String identity = impression.requestId() + "/" + impression.adId();
                boolean fresh = (expected == Verdict.UNIQUE || expected == Verdict.LATE) && !falselyDropped.contains(identity);
                if (fresh) { // a fresh key, checked against the stores of its cell, each by the plan it was sized under
                    double chance = 0;
                    Set<StateFormat> met = new HashSet<>();
                    for (long bucket = buckets.firstBucketToCheck(t); bucket <= buckets.lastBucketToCheck(t); bucket++) {
                        StoreCell store = storeHolding(bucket, impression.digestHigh());
                        if (store != null) {
                            chance += store.bound.promisedChance(store.fill, store.format);
                            met.add(store.format);
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
                if (inserted != TimeBuckets.NO_BUCKET) {
                    inserted(inserted, impression.digestHigh());
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
