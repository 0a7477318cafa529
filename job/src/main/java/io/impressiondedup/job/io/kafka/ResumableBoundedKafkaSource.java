package io.impressiondedup.job.io.kafka;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.watermark.WatermarkDeclaration;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded {@link KafkaSource} that also finishes when its enumerator is restored from a savepoint or
 * checkpoint; an unbounded one is returned as it is ({@link #of}). Works around FLINK-31006, open in
 * flink-connector-kafka 5.0.0-2.2.
 *
 * <p><b>Why a restored bounded Kafka source never finishes.</b> A bounded source ends when every reader
 * has read its splits to their stopping offsets <em>and</em> has been told "no more splits" by the
 * enumerator. {@code KafkaSourceEnumerator} sends that signal only once its flag {@code
 * noMoreNewPartitionSplits} is set, and sets it only in {@code handlePartitionSplitChanges}, after a
 * partition discovery that found a change. The flag is not part of the checkpointed state ({@link
 * KafkaSourceEnumState} holds the assigned and unassigned splits and {@code initialDiscoveryFinished}).
 * An enumerator restored from a savepoint, a retained checkpoint, or after a JobManager failover
 * (which all call {@link Source#restoreEnumerator}) runs its one discovery, finds every partition
 * already among its assigned splits and, the initial discovery being recorded as finished, returns
 * on the empty change before it reaches the code that sets the flag. The readers read up to their
 * stopping offsets (kept in their split state from the first start) and then wait for a signal that
 * never comes: the job stays RUNNING with all its input read, at any parallelism.
 *
 * <p><b>What this class does.</b> It delegates everything to the {@code KafkaSource}: the readers,
 * the splits, the enumerator and its checkpoint state with the connector's own serializers, so
 * savepoints restore as they are and the source's state under its uid is the connector's. Only a
 * restored enumerator of a bounded source is wrapped, with a context that watches what the
 * connector's enumerator does with it. Once (1) the enumerator has started and every asynchronous
 * call it made (the discovery, and any split initialisation it chained) has returned to the
 * coordinator thread, and (2) its state holds no unassigned split (its splits waiting for a reader
 * to register, or returned by a failed reader, are unassigned until assigned), every registered
 * reader not yet told is sent "no more splits"; so is every reader that registers later (after a
 * failover, or at a new parallelism), after the connector has assigned it its pending splits. A
 * bounded source discovers partitions only once (the builder turns periodic discovery off), so
 * after (1) no split can appear except those a failed reader returns, which (2) waits for. Each
 * reader is told once per registration, whoever tells it: a second signal to a reader that has
 * already finished would fail the job. A source with periodic discovery is never signalled by
 * this class.
 *
 * <p><b>When to delete it.</b> When the project moves to a Kafka connector release that contains the
 * fix for FLINK-31006. To check: make {@link #of} return the {@code KafkaSource} unwrapped and run
 * {@code local/BoundedResumeIT}; if the resumed bounded job finishes, the connector is fixed and
 * this class can go.
 */
public final class ResumableBoundedKafkaSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T>, LineageVertexProvider {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ResumableBoundedKafkaSource.class);

    private final KafkaSource<T> kafka;

    private ResumableBoundedKafkaSource(KafkaSource<T> kafka) {
        this.kafka = kafka;
    }

    /** {@code kafka} if it is unbounded; if bounded, a source that is {@code kafka} except that a restored enumerator finishes. */
    public static <T> Source<T, KafkaPartitionSplit, KafkaSourceEnumState> of(KafkaSource<T> kafka) {
        return kafka.getBoundedness() == Boundedness.BOUNDED ? new ResumableBoundedKafkaSource<>(kafka) : kafka;
    }

    @Override
    public Boundedness getBoundedness() {
        return kafka.getBoundedness();
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext readerContext) throws Exception {
        return kafka.createReader(readerContext);
    }

    /** A fresh enumerator is the connector's own: its first discovery finds every partition new and signals the end itself. */
    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
        return kafka.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint) throws Exception {
        EndSignallingEnumerator enumerator = new EndSignallingEnumerator(context);
        enumerator.restored = kafka.restoreEnumerator(enumerator.watched, checkpoint);
        return enumerator;
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return kafka.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return kafka.getEnumeratorCheckpointSerializer();
    }

    @Override
    public Set<? extends WatermarkDeclaration> declareWatermarks() {
        return kafka.declareWatermarks();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return kafka.getProducedType();
    }

    @Override
    public LineageVertex getLineageVertex() {
        return kafka.getLineageVertex();
    }

    /**
     * The connector's restored enumerator, and the end signal it does not send. Every method runs in
     * the source coordinator's thread, as do the handlers of {@code callAsync}.
     */
    private static final class EndSignallingEnumerator implements SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> {

        private final SplitEnumeratorContext<KafkaPartitionSplit> context;
        private final WatchedContext watched;
        private SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restored;
        private boolean started;
        /** Calls of {@code callAsync} whose handler has not run yet. */
        private int asyncCallsOutstanding;
        private boolean periodicDiscovery;
        /** Readers told "no more splits" since they last registered, by the connector or by this class. */
        private final Set<Integer> toldNoMoreSplits = new HashSet<>();

        EndSignallingEnumerator(SplitEnumeratorContext<KafkaPartitionSplit> context) {
            this.context = context;
            this.watched = new WatchedContext(context, this);
        }

        @Override
        public void start() {
            restored.start();
            started = true;
            signalEndIfAllAssigned();
        }

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {
            restored.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<KafkaPartitionSplit> splits, int subtaskId) {
            restored.addSplitsBack(splits, subtaskId);
            signalEndIfAllAssigned();
        }

        @Override
        public void addReader(int subtaskId) {
            toldNoMoreSplits.remove(subtaskId); // a new registration: a restarted reader, which needs telling again
            restored.addReader(subtaskId);
            signalEndIfAllAssigned();
        }

        @Override
        public KafkaSourceEnumState snapshotState(long checkpointId) throws Exception {
            return restored.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            restored.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            restored.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
            restored.handleSourceEvent(subtaskId, sourceEvent);
        }

        @Override
        public void close() throws java.io.IOException {
            restored.close();
        }

        void asyncCallIssued() {
            asyncCallsOutstanding++;
        }

        void asyncCallHandled() {
            asyncCallsOutstanding--;
            signalEndIfAllAssigned();
        }

        /**
         * Tells every registered reader not yet told that no split will come, once discovery is over
         * and nothing is left to assign. The enumerator's unassigned splits are read from a snapshot of
         * its state: {@code KafkaSourceEnumerator.snapshotState} only copies its split maps.
         */
        private void signalEndIfAllAssigned() {
            if (!started || asyncCallsOutstanding > 0 || periodicDiscovery) {
                return;
            }
            int unassigned;
            try {
                unassigned = restored.snapshotState(-1).unassignedSplits().size();
            } catch (Exception e) {
                throw new IllegalStateException("Could not read the restored Kafka source enumerator's unassigned splits", e);
            }
            if (unassigned > 0) {
                return;
            }
            for (int reader : context.registeredReaders().keySet()) {
                if (!toldNoMoreSplits.contains(reader)) {
                    LOG.info("Restored bounded Kafka source: every split is assigned; telling reader {} that no more splits will come", reader);
                    watched.signalNoMoreSplits(reader);
                }
            }
        }
    }

    /** The coordinator's context as the connector's enumerator sees it: counts its async calls and notes whom it tells the end. */
    private static final class WatchedContext implements SplitEnumeratorContext<KafkaPartitionSplit> {

        private final SplitEnumeratorContext<KafkaPartitionSplit> context;
        private final EndSignallingEnumerator enumerator;

        WatchedContext(SplitEnumeratorContext<KafkaPartitionSplit> context, EndSignallingEnumerator enumerator) {
            this.context = context;
            this.enumerator = enumerator;
        }

        @Override
        public <R> void callAsync(Callable<R> callable, BiConsumer<R, Throwable> handler) {
            enumerator.asyncCallIssued();
            context.callAsync(callable, (result, error) -> {
                handler.accept(result, error);
                enumerator.asyncCallHandled();
            });
        }

        @Override
        public <R> void callAsync(Callable<R> callable, BiConsumer<R, Throwable> handler, long initialDelayMs, long periodMs) {
            enumerator.periodicDiscovery = true; // new partitions may appear at any time: the end is never known
            context.callAsync(callable, handler, initialDelayMs, periodMs);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            enumerator.toldNoMoreSplits.add(subtask);
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, event);
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, attemptNumber, event);
        }

        @Override
        public int currentParallelism() {
            return context.currentParallelism();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return context.registeredReaders();
        }

        @Override
        public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
            return context.registeredReadersOfAttempts();
        }

        @Override
        public void assignSplits(SplitsAssignment<KafkaPartitionSplit> newSplitAssignments) {
            context.assignSplits(newSplitAssignments);
        }

        @Override
        public void assignSplit(KafkaPartitionSplit split, int subtask) {
            context.assignSplit(split, subtask);
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            context.runInCoordinatorThread(runnable);
        }

        @Override
        public void setIsProcessingBacklog(boolean isProcessingBacklog) {
            context.setIsProcessingBacklog(isProcessingBacklog);
        }
    }
}
