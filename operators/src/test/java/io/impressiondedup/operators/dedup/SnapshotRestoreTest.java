package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decisions survive a snapshot and restore, also into another parallelism: a run interrupted by a
 * restore emits exactly what an uninterrupted run emits. The second half of the input repeats
 * impressions of the first, across a day boundary, so a restore that lost state would pass them.
 */
class SnapshotRestoreTest {

    /** Two halves of a stream: events with duplicates inside and across halves, and watermarks. */
    static final List<Object> BEFORE = new ArrayList<>();
    static final List<Object> AFTER = new ArrayList<>();

    static {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 600; i++) {
            BEFORE.add(impression("req-" + random.nextInt(400), "ad-" + random.nextInt(3), T0 + 20 * HOUR + i * 60_000L));
            if (i % 100 == 99) {
                BEFORE.add(T0 + 20 * HOUR + i * 60_000L - 5 * 60_000L); // a watermark
            }
        }
        for (int i = 0; i < 600; i++) {
            AFTER.add(impression("req-" + random.nextInt(600), "ad-" + random.nextInt(3), T0 + DAY + 6 * HOUR + i * 60_000L));
            if (i % 100 == 99) {
                AFTER.add(T0 + DAY + 6 * HOUR + i * 60_000L - 5 * 60_000L);
            }
        }
    }

    static List<String> uninterrupted(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(DedupOperatorTest.defaults(), backend)) {
            feed(List.of(h), 1, BEFORE);
            feed(List.of(h), 1, AFTER);
            return sorted(h.emittedRequestIdsWithTime());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoredOperatorDecidesAsIfItHadNeverStopped(Backend backend) throws Exception {
        List<String> emitted = emittedAcrossRestore(backend, DedupOperatorTest.defaults());

        List<String> reference = uninterrupted(backend);
        assertThat(reference).hasSizeGreaterThan(400).hasSizeLessThan(1000); // the input really has duplicates
        assertThat(sorted(emitted)).isEqualTo(reference);
    }

    /**
     * Capacity, FPP and page size may change across a restore: buckets already in state keep the
     * geometry they were created with (their pages are addressed by it), new buckets take the new one.
     * The second half of the stream creates a new day bucket and looks copies up in the old one.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoreWithAnotherCapacityFppAndPageSizeKeepsTheBucketsInState(Backend backend) throws Exception {
        DedupSettings replanned = DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(30_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.0001).pageBytes(256).build())
                .build();
        assertThat(replanned.plan().pageBytes()).isNotEqualTo(DedupOperatorTest.defaults().plan().pageBytes());
        List<String> emitted = emittedAcrossRestore(backend, replanned);

        assertThat(sorted(emitted)).isEqualTo(uninterrupted(backend));
    }

    /**
     * {@code stop --drain} and the end of a bounded input send the end-of-time watermark before the final
     * snapshot. Resumed, that snapshot must decide exactly as a plain one: no bucket expired by it (the copies in
     * the second half would pass), no record judged late against it (they would all be dead-lettered).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aSnapshotTakenAfterTheEndOfEventTimeResumesExactlyLikeAPlainOne(Backend backend) throws Exception {
        List<String> emitted = new ArrayList<>();
        List<String> late = new ArrayList<>();
        OperatorSubtaskState state;
        try (DedupHarness before = DedupHarness.open(DedupOperatorTest.defaults(), backend)) {
            feed(List.of(before), 1, BEFORE);
            before.watermark(Long.MAX_VALUE);
            assertThat(before.counter("buckets-expired")).as("buckets expired by the end of event time").isZero();
            state = before.snapshot(1);
            emitted.addAll(before.emittedRequestIdsWithTime());
        }
        try (DedupHarness after = DedupHarness.open(DedupOperatorTest.defaults(), backend, 1, 0, state)) {
            feed(List.of(after), 1, AFTER);
            emitted.addAll(after.emittedRequestIdsWithTime());
            after.late().forEach(letter -> late.add(letter.error()));
        }

        assertThat(late).as("records dead-lettered as late after the resume").isEmpty();
        assertThat(sorted(emitted)).isEqualTo(uninterrupted(backend));
    }

    /**
     * State drained by a release that obeyed the end of time holds the lateness watermark {@code Long.MAX_VALUE} and no
     * bucket: resumed, every record would be late and nothing found. The restore is refused, naming the option that
     * accepts it.
     */
    @org.junit.jupiter.api.Test
    void stateWhoseLatenessWatermarkIsTheEndOfTimeIsRefusedNamingTheOption() throws Exception {
        OperatorSubtaskState legacy;
        try (org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness<Impression, Impression> writer =
                new org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness<>(new LegacyDrainedState(), DedupHarness.MAX_PARALLELISM, 1, 0)) {
            writer.open();
            legacy = writer.snapshot(1, 1);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DedupHarness.open(DedupOperatorTest.defaults(), Backend.HASHMAP, 1, 0, legacy))
                .hasStackTraceContaining("lateness watermark is the end of time")
                .hasStackTraceContaining("--reset-lateness-watermark true");
        DedupSettings reset = DedupSettings.builder().plan(DedupOperatorTest.defaults().plan()).resetLatenessWatermark(true).build();
        try (DedupHarness h = DedupHarness.open(reset, Backend.HASHMAP, 1, 0, legacy)) {
            h.process(impression("r1", "a1", T0 + HOUR));
            assertThat(h.emitted()).hasSize(1);
        }
    }

    /** The operator state a drained savepoint of the release that obeyed the end of time holds: shard count and watermark. */
    private static final class LegacyDrainedState extends org.apache.flink.streaming.api.operators.AbstractStreamOperator<Impression>
            implements org.apache.flink.streaming.api.operators.OneInputStreamOperator<Impression, Impression> {
        @Override
        public void initializeState(org.apache.flink.runtime.state.StateInitializationContext context) throws Exception {
            super.initializeState(context);
            context.getOperatorStateStore().getUnionListState(DedupStateLayout.shardCount()).update(List.of(DedupHarness.MAX_PARALLELISM));
            context.getOperatorStateStore().getUnionListState(DedupStateLayout.latenessWatermark()).update(List.of(Long.MAX_VALUE));
        }

        @Override
        public void processElement(org.apache.flink.streaming.runtime.streamrecord.StreamRecord<Impression> element) {}
    }

    static Stream<Arguments> rescalings() {
        return Stream.of(Backend.values()).flatMap(b -> Stream.of(Arguments.of(b, 3), Arguments.of(b, 1)));
    }

    @ParameterizedTest(name = "{0}: 2 -> {1}")
    @MethodSource("rescalings")
    void stateSnapshotAtParallelismTwoRestoresAtAnotherParallelismWithIdenticalDecisions(Backend backend, int newParallelism)
            throws Exception {
        List<String> emitted = new ArrayList<>();
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[2];
        List<DedupHarness> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(DedupHarness.open(DedupOperatorTest.defaults(), backend, 2, i, null));
        }
        feed(two, 2, BEFORE);
        for (int i = 0; i < 2; i++) {
            snapshots[i] = two.get(i).snapshot(1);
            emitted.addAll(two.get(i).emittedRequestIdsWithTime());
            two.get(i).close();
        }

        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(snapshots);
        List<DedupHarness> rescaled = new ArrayList<>();
        for (int i = 0; i < newParallelism; i++) {
            OperatorSubtaskState part = AbstractStreamOperatorTestHarness.repartitionOperatorState(
                    merged, DedupHarness.MAX_PARALLELISM, 2, newParallelism, i);
            rescaled.add(DedupHarness.open(DedupOperatorTest.defaults(), backend, newParallelism, i, part));
        }
        feed(rescaled, newParallelism, AFTER);
        for (DedupHarness h : rescaled) {
            emitted.addAll(h.emittedRequestIdsWithTime());
            h.close();
        }

        assertThat(sorted(emitted)).isEqualTo(uninterrupted(backend));
    }

    /** Routes each impression to the subtask owning its key group, and every watermark to all. */
    private static void feed(List<DedupHarness> subtasks, int parallelism, List<Object> events) throws Exception {
        for (Object event : events) {
            if (event instanceof Impression) {
                Impression impression = (Impression) event;
                int key = subtasks.get(0).shardKeyOf(impression);
                int subtask = KeyGroupRangeAssignment.assignKeyToParallelOperator(key, DedupHarness.MAX_PARALLELISM, parallelism);
                subtasks.get(subtask).process(impression);
            } else {
                for (DedupHarness h : subtasks) {
                    h.watermark((Long) event);
                }
            }
        }
    }

    private static List<String> sorted(List<String> values) {
        List<String> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }

    /** The first half of the stream with default settings, a snapshot, then the second half restored with {@code settingsAfter}. */
    private static List<String> emittedAcrossRestore(Backend backend, DedupSettings settingsAfter) throws Exception {
        List<String> emitted = new ArrayList<>();
        OperatorSubtaskState state;
        try (DedupHarness before = DedupHarness.open(DedupOperatorTest.defaults(), backend)) {
            feed(List.of(before), 1, BEFORE);
            state = before.snapshot(1);
            emitted.addAll(before.emittedRequestIdsWithTime());
        }
        try (DedupHarness after = DedupHarness.open(settingsAfter, backend, 1, 0, state)) {
            feed(List.of(after), 1, AFTER);
            emitted.addAll(after.emittedRequestIdsWithTime());
        }
        return emitted;
    }
}
