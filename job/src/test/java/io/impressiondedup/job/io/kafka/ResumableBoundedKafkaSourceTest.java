package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The connector's restored enumerator, driven through a recording context: when the end is told,
 * to whom, and never before a split meant for a reader was assigned. No broker: the one partition
 * discovery is answered by the test. (On a real broker and MiniCluster: {@code local/BoundedResumeIT}.)
 */
class ResumableBoundedKafkaSourceTest {

    static final String TOPIC = "impressions";
    static final Set<TopicPartition> PARTITIONS = Set.of(tp(0), tp(1), tp(2), tp(3));

    @Test
    void aRestoredBoundedEnumeratorTellsEachRegisteredReaderTheEndOnceItsDiscoveryFindsNoChange() throws Exception {
        RecordingContext context = new RecordingContext(3);
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator = restore(context, state(List.of(0, 1, 2, 3), List.of()));

        enumerator.start();
        context.register(enumerator, 0, 1, 2);
        assertThat(context.events).as("before the discovery has answered").isEmpty();

        context.answerDiscovery(PARTITIONS);

        assertThat(context.events).containsExactlyInAnyOrder("end 0", "end 1", "end 2");
    }

    @Test
    void eachRegistrationOfAReaderIsToldTheEndExactlyOnce_includingReadersRegisteringAfterTheEnd() throws Exception {
        RecordingContext context = new RecordingContext(3);
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator = restore(context, state(List.of(0, 1, 2, 3), List.of()));
        enumerator.start();
        context.register(enumerator, 0, 1);
        context.answerDiscovery(PARTITIONS);

        context.register(enumerator, 2);
        context.registered.remove(1); // reader 1 fails; the splits it read are in its own checkpointed state
        enumerator.addSplitsBack(List.of(), 1);
        context.register(enumerator, 1);
        context.register(enumerator, 0); // addReader for a reader already told, as a duplicate registration would

        assertThat(context.events).containsExactly("end 0", "end 1", "end 2", "end 1", "end 0");
    }

    @Test
    void aSplitReturnedByAFailedReaderIsAssignedBeforeTheEndIsToldAgain() throws Exception {
        RecordingContext context = new RecordingContext(1);
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator = restore(context, state(List.of(0, 1, 2, 3), List.of()));
        enumerator.start();
        context.register(enumerator, 0);
        context.answerDiscovery(PARTITIONS);
        assertThat(context.events).containsExactly("end 0");

        context.registered.remove(0);
        enumerator.addSplitsBack(List.of(new KafkaPartitionSplit(tp(2), 40, 100)), 0);
        assertThat(context.events).as("nobody registered to take the returned split").containsExactly("end 0");
        context.register(enumerator, 0);

        assertThat(context.events).containsExactly("end 0", "assign 0 " + tp(2), "end 0");
    }

    @Test
    void noReaderIsToldTheEndWhileARestoredUnassignedSplitWaitsForItsReader() throws Exception {
        RecordingContext context = new RecordingContext(4);
        // Partition 3's split was initialised but not yet assigned when the savepoint was taken.
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator = restore(context, state(List.of(0, 1, 2), List.of(3)));
        enumerator.start();
        context.answerDiscovery(PARTITIONS);

        for (int reader = 0; reader < 4; reader++) {
            context.register(enumerator, reader);
        }

        // The split's owner (reader 1 for this topic at parallelism 4) registers after reader 0: reader 0 must wait for it.
        assertThat(context.events).as("the first event").first().asString().startsWith("assign ").isNotEqualTo("assign 0 " + tp(3));
        assertThat(context.events).hasSize(5).contains("end 0", "end 1", "end 2", "end 3");
    }

    @Test
    void theCheckpointedStateIsTheConnectorsOwn() throws Exception {
        KafkaSource<String> kafka = kafkaSource(true);
        Source<String, KafkaPartitionSplit, KafkaSourceEnumState> source = ResumableBoundedKafkaSource.of(kafka);
        KafkaSourceEnumState restoredState = state(List.of(0, 1), List.of(2));
        SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator = source.restoreEnumerator(new RecordingContext(2), restoredState);

        KafkaSourceEnumState snapshot = enumerator.snapshotState(7);
        byte[] bytes = source.getEnumeratorCheckpointSerializer().serialize(snapshot);
        KafkaSourceEnumState read = kafka.getEnumeratorCheckpointSerializer()
                .deserialize(kafka.getEnumeratorCheckpointSerializer().getVersion(), bytes);

        assertThat(source.getEnumeratorCheckpointSerializer().getVersion()).isEqualTo(kafka.getEnumeratorCheckpointSerializer().getVersion());
        assertThat(read.assignedSplits()).containsExactlyInAnyOrderElementsOf(restoredState.assignedSplits());
        assertThat(read.unassignedSplits()).containsExactlyInAnyOrderElementsOf(restoredState.unassignedSplits());
        assertThat(read.initialDiscoveryFinished()).isTrue();
    }

    @Test
    void anUnboundedSourceIsTheConnectorsUnwrapped() {
        KafkaSource<String> unbounded = kafkaSource(false);
        assertThat(ResumableBoundedKafkaSource.of(unbounded)).isSameAs(unbounded);
        assertThat(ResumableBoundedKafkaSource.of(kafkaSource(true))).isInstanceOf(ResumableBoundedKafkaSource.class);
    }

    private static SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restore(RecordingContext context, KafkaSourceEnumState state)
            throws Exception {
        return ResumableBoundedKafkaSource.of(kafkaSource(true)).restoreEnumerator(context, state);
    }

    /** A savepoint's enumerator state: these partitions assigned, those initialised and waiting for their reader. */
    private static KafkaSourceEnumState state(List<Integer> assigned, List<Integer> unassigned) {
        return new KafkaSourceEnumState(assigned.stream().map(p -> new KafkaPartitionSplit(tp(p), 0, 100)).toList(),
                unassigned.stream().map(p -> new KafkaPartitionSplit(tp(p), 0, 100)).toList(), true);
    }

    private static KafkaSource<String> kafkaSource(boolean bounded) {
        var builder = KafkaSource.<String>builder()
                .setBootstrapServers("127.0.0.1:9") // never reached: the test answers the enumerator's discovery
                .setTopics(TOPIC)
                .setGroupId("resume-test")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(StringDeserializer.class));
        if (bounded) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition(TOPIC, partition);
    }

    /** The source coordinator's context, in one thread: records assignments and end signals; async calls wait for the test. */
    private static final class RecordingContext implements SplitEnumeratorContext<KafkaPartitionSplit> {
        final int parallelism;
        final Map<Integer, ReaderInfo> registered = new TreeMap<>();
        final List<String> events = new ArrayList<>();
        final List<BiConsumer<Object, Throwable>> pendingHandlers = new ArrayList<>();

        RecordingContext(int parallelism) {
            this.parallelism = parallelism;
        }

        void register(SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator, int... readers) {
            for (int reader : readers) {
                registered.put(reader, new ReaderInfo(reader, "localhost"));
                enumerator.addReader(reader);
            }
        }

        /** Runs the handler of the enumerator's one partition discovery as if the brokers listed {@code partitions}. */
        void answerDiscovery(Set<TopicPartition> partitions) {
            assertThat(pendingHandlers).as("the enumerator's pending async calls").hasSize(1);
            pendingHandlers.remove(0).accept(partitions, null);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            pendingHandlers.add((BiConsumer<Object, Throwable>) handler);
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            throw new AssertionError("a bounded source discovers partitions once");
        }

        @Override
        public void assignSplits(SplitsAssignment<KafkaPartitionSplit> assignment) {
            assignment.assignment().forEach((reader, splits) -> splits.forEach(s -> events.add("assign " + reader + " " + s.getTopicPartition())));
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            assertThat(registered).as("told the end: reader %s", subtask).containsKey(subtask);
            events.add("end " + subtask);
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return registered;
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }
}
