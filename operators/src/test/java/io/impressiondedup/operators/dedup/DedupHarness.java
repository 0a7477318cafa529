package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.metrics.DeadLetterMetric;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.reshape.ShardReshape;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** A {@link DedupOperator} in Flink's keyed operator harness, with its metrics and state in reach. */
final class DedupHarness implements AutoCloseable {

    static final int MAX_PARALLELISM = 128;

    final KeyedOneInputStreamOperatorTestHarness<Integer, Impression, Impression> harness;
    final DedupSettings settings;
    final ShardKeySelector keySelector;
    private final Backend backendType;
    private final KeyedInterceptingMetricGroup metrics;

    private DedupHarness(DedupSettings settings, Backend backend, int parallelism, int subtask) throws Exception {
        this.settings = settings;
        this.backendType = backend;
        this.keySelector = new ShardKeySelector(settings.plan().shards(), MAX_PARALLELISM);
        this.metrics = new KeyedInterceptingMetricGroup();
        InterceptingOperatorMetricGroup operatorGroup = metrics;
        UnregisteredMetricGroups.UnregisteredTaskMetricGroup taskGroup = new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
            @Override
            public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name, Map<String, String> additional) {
                return operatorGroup;
            }
        };
        this.harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new DedupOperator(settings),
                keySelector,
                Types.INT,
                new MockEnvironmentBuilder()
                        .setMetricGroup(taskGroup)
                        .setMaxParallelism(MAX_PARALLELISM)
                        .setParallelism(parallelism)
                        .setSubtaskIndex(subtask)
                        .build());
        harness.setStateBackend(backend.create());
    }

    /** An opened harness with empty state. */
    static DedupHarness open(DedupSettings settings, Backend backend) throws Exception {
        return open(settings, backend, 1, 0, null);
    }

    /** An opened harness of subtask {@code subtask} of {@code parallelism}, restored from {@code state} if given. */
    static DedupHarness open(DedupSettings settings, Backend backend, int parallelism, int subtask, OperatorSubtaskState state)
            throws Exception {
        DedupHarness h = new DedupHarness(settings, backend, parallelism, subtask);
        if (state != null) {
            h.harness.initializeState(state);
        }
        h.harness.open();
        return h;
    }

    void process(Impression impression) throws Exception {
        harness.processElement(new StreamRecord<>(impression, impression.eventTime()));
    }

    void watermark(long timestamp) throws Exception {
        harness.processWatermark(new Watermark(timestamp));
    }

    /** Request ids of the impressions emitted so far, in order. */
    List<String> emittedRequestIds() {
        return emitted().stream().map(i -> i.requestId() + "/" + i.adId()).collect(Collectors.toList());
    }

    /** "requestId/adId@eventTime" of the impressions emitted so far, in order. */
    List<String> emittedRequestIdsWithTime() {
        return emitted().stream().map(i -> i.requestId() + "/" + i.adId() + "@" + i.eventTime()).collect(Collectors.toList());
    }

    List<Impression> emitted() {
        return harness.extractOutputValues();
    }

    List<DeadLetter> late() {
        List<DeadLetter> late = new ArrayList<>();
        if (harness.getSideOutput(DedupOperator.LATE) != null) {
            harness.getSideOutput(DedupOperator.LATE).forEach(r -> late.add(r.getValue()));
        }
        return late;
    }

    /** The outcomes emitted for the reconciliation rows so far (only with {@link DedupSettings#emitOutcomes()}). */
    List<io.impressiondedup.operators.stats.RecordOutcome> outcomes() {
        List<io.impressiondedup.operators.stats.RecordOutcome> outcomes = new ArrayList<>();
        if (harness.getSideOutput(DedupOperator.OUTCOMES) != null) {
            harness.getSideOutput(DedupOperator.OUTCOMES).forEach(r -> outcomes.add(r.getValue()));
        }
        return outcomes;
    }

    List<Impression> duplicates() {
        List<Impression> duplicates = new ArrayList<>();
        if (harness.getSideOutput(DedupOperator.DUPLICATES) != null) {
            harness.getSideOutput(DedupOperator.DUPLICATES).forEach(r -> duplicates.add(r.getValue()));
        }
        return duplicates;
    }

    /** The impression a dead letter was made from (test impressions carry requestId, adId and ts in their JSON). */
    static Impression impressionOf(DeadLetter letter) {
        String json = new String(letter.raw().value(), java.nio.charset.StandardCharsets.UTF_8);
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("\\{\"requestId\":\"([^\"]*)\",\"adId\":\"([^\"]*)\",\"ts\":(-?\\d+)}").matcher(json);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a test impression: " + json);
        }
        return TestImpressions.impression(m.group(1), m.group(2), Long.parseLong(m.group(3)));
    }

    long counter(String name) {
        return ((Counter) Objects.requireNonNull(metrics.get(name), name)).getCount();
    }

    /** The {@link DeadLetterMetric} counter of {@code reason}. */
    long deadLetters(DeadLetterReason reason) {
        InterceptingOperatorMetricGroup group = Objects.requireNonNull(
                metrics.subgroup(DeadLetterMetric.REASON_KEY, reason.headerValue()), "metric group reason=" + reason.headerValue());
        return ((Counter) Objects.requireNonNull(group.get(DeadLetterMetric.NAME), DeadLetterMetric.NAME)).getCount();
    }

    Object gauge(String name) {
        return ((Gauge<?>) Objects.requireNonNull(metrics.get(name), name)).getValue();
    }

    /** A checkpoint: its pages may be in a page journal ({@code PageJournal}). */
    OperatorSubtaskState snapshot(long checkpointId) throws Exception {
        harness.prepareSnapshotPreBarrier(checkpointId);
        return harness.snapshot(checkpointId, checkpointId);
    }

    /** A savepoint: every page written, no journal (what the state tools read). */
    OperatorSubtaskState savepoint(long checkpointId) throws Exception {
        harness.prepareSnapshotPreBarrier(checkpointId);
        return harness.snapshotWithLocalState(checkpointId, checkpointId, SavepointType.savepoint(SavepointFormatType.CANONICAL))
                .getJobManagerOwnedState();
    }

    /** Shard keys holding a page journal in keyed state. */
    long shardsWithJournal() {
        try (var keys = backend().getKeys(DedupStateLayout.PAGE_JOURNAL, VoidNamespace.INSTANCE)) {
            return keys.count();
        }
    }

    /** Bytes of the page journals in keyed state, all shards. */
    long journalBytes() throws Exception {
        List<Integer> keys;
        try (var journaled = backend().getKeys(DedupStateLayout.PAGE_JOURNAL, VoidNamespace.INSTANCE)) {
            keys = journaled.collect(java.util.stream.Collectors.toList());
        }
        long bytes = 0;
        for (int key : keys) {
            backend().setCurrentKey(key);
            org.apache.flink.api.common.state.ListState<byte[]> journal = backend().getPartitionedState(
                    VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.pageJournal());
            for (byte[] value : journal.get()) {
                bytes += value.length;
            }
        }
        return bytes;
    }

    /** Page groups in keyed state, all shards (each shard's key made current in turn). */
    long storedPageGroups() throws Exception {
        long groups = 0;
        for (int key : shardKeysWithState()) {
            groups += storedPages(key).size();
        }
        return groups;
    }

    int shardKeyOf(Impression impression) {
        return keySelector.getKey(impression);
    }

    // ---- direct reads of keyed state, the same on both backends ----

    private KeyedStateBackend<Integer> backend() {
        return harness.getOperator().getKeyedStateBackend();
    }

    /** Shard keys holding a bucket directory in keyed state. */
    long shardsWithDirectory() {
        try (var keys = backend().getKeys(DedupStateLayout.DIRECTORY, VoidNamespace.INSTANCE)) {
            return keys.count();
        }
    }

    /** Pages in keyed state for {@code shardKey}, per bucket (sub-pages of the shard's page groups). */
    Map<Long, Long> pagesPerBucket(int shardKey) throws Exception {
        backend().setCurrentKey(shardKey);
        MapState<Long, PageGroup> groups = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.pages());
        Map<Long, Long> perBucket = new java.util.TreeMap<>();
        for (PageGroup group : groups.values()) {
            for (int i = 0; i < group.size(); i++) {
                perBucket.merge(group.bucketAt(i), 1L, Long::sum);
            }
        }
        return perBucket;
    }

    /** Bytes of the Bloom pages keyed state holds for {@code shardKey}, over all its buckets and layers. */
    long pageBytes(int shardKey) throws Exception {
        backend().setCurrentKey(shardKey);
        MapState<Long, PageGroup> groups = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.pages());
        long words = 0;
        for (PageGroup group : groups.values()) {
            words += group.words();
        }
        return words * Long.BYTES;
    }

    /** The bucket directory keyed state holds for {@code shardKey} (as of the last flush). */
    BucketFilters storedDirectory(int shardKey) throws Exception {
        backend().setCurrentKey(shardKey);
        ValueState<BucketFilters> directory = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.directory());
        return directory.value();
    }

    /** The shard keys whose bucket directory keyed state holds (as of the last flush). */
    List<Integer> shardKeysWithState() throws Exception {
        List<Integer> keys = new ArrayList<>();
        backend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.directory(),
                (key, state) -> {
                    if (state.value() != null) {
                        keys.add((Integer) key);
                    }
                });
        return keys;
    }

    /** The page groups keyed state holds for {@code shardKey}, by page address. */
    Map<Long, PageGroup> storedPages(int shardKey) throws Exception {
        backend().setCurrentKey(shardKey);
        MapState<Long, PageGroup> groups = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.pages());
        Map<Long, PageGroup> copy = new java.util.HashMap<>();
        for (Map.Entry<Long, PageGroup> entry : groups.entries()) {
            copy.put(entry.getKey(), entry.getValue().copy());
        }
        return copy;
    }

    /** The fingerprint pages keyed state holds for {@code shardKey}, by page key (copies). */
    Map<Long, FingerprintPage> storedFingerprintPages(int shardKey) throws Exception {
        backend().setCurrentKey(shardKey);
        MapState<Long, FingerprintPage> stored = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.fingerprintPages());
        Map<Long, FingerprintPage> copy = new java.util.HashMap<>();
        for (Map.Entry<Long, FingerprintPage> entry : stored.entries()) {
            copy.put(entry.getKey(), entry.getValue().copy());
        }
        return copy;
    }

    /** {@link #writeShardState(int, BucketFilters, Map)} and the shard's fingerprint pages. */
    void writeShardState(int shardKey, BucketFilters directory, Map<Long, PageGroup> pages, Map<Long, FingerprintPage> fingerprintPages)
            throws Exception {
        writeShardState(shardKey, directory, pages);
        MapState<Long, FingerprintPage> stored = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.fingerprintPages());
        stored.putAll(fingerprintPages);
    }

    /**
     * Writes a shard's directory and pages into keyed state directly, as the state tools write a savepoint: no
     * operator code runs, so no timer is registered.
     */
    void writeShardState(int shardKey, BucketFilters directory, Map<Long, PageGroup> pages) throws Exception {
        backend().setCurrentKey(shardKey);
        ValueState<BucketFilters> stored = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.directory());
        stored.update(directory);
        MapState<Long, PageGroup> groups = backend().getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.pages());
        groups.putAll(pages);
    }

    /** Every shard's stored directory, by shard (a snapshot writes the cached ones to state). */
    Map<Integer, BucketFilters> storedDirectories() throws Exception {
        ShardKeys keys = keySelector.shardKeys();
        Map<Integer, BucketFilters> directories = new java.util.TreeMap<>();
        for (int key : shardKeysWithState()) {
            directories.put(keys.shardOf(key), storedDirectory(key));
        }
        return directories;
    }

    /**
     * This harness's state (a snapshot taken) reshaped to {@code after}'s shard count as {@code dedup-tools reshape} does it
     * ({@link ShardReshape}: directories planned, Bloom page groups copied to the children, fingerprint pages moved, pages
     * meeting at one key put together as the tool's writer does), written into a fresh operator under {@code after} and
     * snapshotted with {@code latenessWatermark}, the watermark the tool keeps from the savepoint.
     */
    OperatorSubtaskState reshaped(DedupSettings after, long latenessWatermark) throws Exception {
        savepoint(Long.MAX_VALUE); // the tool reads savepoints: every page written
        ShardKeys keysBefore = keySelector.shardKeys();
        ShardReshape plan = ShardReshape.plan(settings.plan().shards(), after.plan().shards(), storedDirectories());
        Map<Integer, Map<Long, PageGroup>> newGroups = new java.util.HashMap<>();
        Map<Integer, Map<Long, FingerprintPage>> newPages = new java.util.HashMap<>();
        for (int key : shardKeysWithState()) {
            int shard = keysBefore.shardOf(key);
            for (Map.Entry<Long, PageGroup> group : storedPages(key).entrySet()) {
                for (int child : plan.childrenOf(shard)) {
                    if (newGroups.computeIfAbsent(child, s -> new java.util.HashMap<>()).put(group.getKey(), group.getValue()) != null) {
                        throw new AssertionError("a page group moved twice to shard " + child);
                    }
                }
            }
            for (Map.Entry<Long, FingerprintPage> page : storedFingerprintPages(key).entrySet()) {
                plan.moveFingerprintPage(shard, page.getKey(), page.getValue(), (to, newKey, moved) -> {
                    FingerprintPage there = newPages.computeIfAbsent(to, s -> new java.util.HashMap<>()).get(newKey);
                    if (there == null) {
                        newPages.get(to).put(newKey, moved.copy());
                        return;
                    }
                    for (int i = 0; i < moved.sectionCount(); i++) {
                        if (there.section(moved.bucketAt(i), moved.bandAt(i)) != null) {
                            throw new AssertionError("a section moved twice: bucket " + moved.bucketAt(i) + " band " + moved.bandAt(i));
                        }
                        there.putSection(moved.bucketAt(i), moved.bandAt(i), moved.sectionAt(i));
                    }
                });
            }
        }
        ShardKeys keysAfter = new ShardKeys(after.plan().shards(), MAX_PARALLELISM);
        try (DedupHarness written = DedupHarness.open(after, backendType)) {
            for (Map.Entry<Integer, BucketFilters> directory : plan.directories().entrySet()) {
                int shard = directory.getKey();
                written.writeShardState(keysAfter.keyOf(shard), directory.getValue(), newGroups.getOrDefault(shard, Map.of()),
                        newPages.getOrDefault(shard, Map.of()));
            }
            written.watermark(latenessWatermark);
            return written.snapshot(1);
        }
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
