package io.impressiondedup.local;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Holds a source's input back at a point the test names until the test {@link #open() opens} the gate: the way to
 * make a test wait for something the job does (a completed checkpoint, a watermark) at a point its input is certain
 * to reach, instead of hoping a replay at full speed is slow enough.
 *
 * <p>{@link #around} wraps any source, unchanged. Each of its readers closes the gate behind the first record its
 * {@link HoldAfter} names (the record itself is emitted) and then reads nothing until the gate opens. It holds
 * without blocking: its reader reports no input available, with a future that completes when the gate opens, so the
 * task's mailbox keeps running the periodic watermark emission, checkpoint triggers and checkpoint notifications,
 * and downstream tasks process what they hold. A checkpoint taken while the gate is closed is an ordinary one:
 * every record before the hold is behind its barrier, every record after it ahead.
 *
 * <p>State is static: the job runs on a MiniCluster in the test's JVM, one test at a time ({@link #reset()}).
 */
final class InputGate {

    private static volatile CompletableFuture<Void> opened = new CompletableFuture<>();
    /** Readers that reached their hold point, whether or not the gate was still closed then. */
    private static final AtomicInteger READERS_HELD = new AtomicInteger();
    /** Readers that reached their hold point while the gate was closed, and so waited. */
    private static final AtomicInteger READERS_WAITED = new AtomicInteger();

    private InputGate() {}

    /** Closes the gate and forgets the holds of the previous test. */
    static void reset() {
        opened = new CompletableFuture<>();
        READERS_HELD.set(0);
        READERS_WAITED.set(0);
    }

    /** Opens the gate for good (until {@link #reset()}); any thread may call it. */
    static void open() {
        opened.complete(null);
    }

    static boolean isOpen() {
        return opened.isDone();
    }

    static int readersHeld() {
        return READERS_HELD.get();
    }

    static int readersThatWaited() {
        return READERS_WAITED.get();
    }

    /** Where a reader closes the gate: after the record for which this says true. */
    @FunctionalInterface
    interface HoldAfter<T> extends Serializable {
        /** {@code emitted}: records this reader has emitted, this one included. */
        boolean test(T record, long emitted);
    }

    static <T, S extends SourceSplit, E> Source<T, S, E> around(Source<T, S, E> source, HoldAfter<T> holdAfter) {
        return new GatedSource<>(source, holdAfter);
    }

    private static final class GatedSource<T, S extends SourceSplit, E> implements Source<T, S, E> {
        private static final long serialVersionUID = 1L;
        private final Source<T, S, E> source;
        private final HoldAfter<T> holdAfter;

        GatedSource(Source<T, S, E> source, HoldAfter<T> holdAfter) {
            this.source = source;
            this.holdAfter = holdAfter;
        }

        @Override
        public Boundedness getBoundedness() {
            return source.getBoundedness();
        }

        @Override
        public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
            return new GatedReader<>(source.createReader(context), holdAfter);
        }

        @Override
        public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
            return source.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E checkpoint) throws Exception {
            return source.restoreEnumerator(context, checkpoint);
        }

        @Override
        public SimpleVersionedSerializer<S> getSplitSerializer() {
            return source.getSplitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
            return source.getEnumeratorCheckpointSerializer();
        }
    }

    /** The wrapped reader, which stops asking its delegate for records once past its hold point while the gate is closed. */
    private static final class GatedReader<T, S extends SourceSplit> implements SourceReader<T, S> {
        private final SourceReader<T, S> reader;
        private final HoldAfter<T> holdAfter;
        private long emitted;
        private boolean pastHoldPoint;
        /** Past the hold point and not yet let through. */
        private boolean holding;

        GatedReader(SourceReader<T, S> reader, HoldAfter<T> holdAfter) {
            this.reader = reader;
            this.holdAfter = holdAfter;
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            if (holding) {
                if (!isOpen()) {
                    return InputStatus.NOTHING_AVAILABLE;
                }
                holding = false;
            }
            InputStatus status = reader.pollNext(new Watching(output));
            if (holding && status != InputStatus.END_OF_INPUT) {
                if (!isOpen()) {
                    READERS_WAITED.incrementAndGet();
                    return InputStatus.NOTHING_AVAILABLE;
                }
                holding = false;
            }
            return status;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return holding && !isOpen() ? opened : reader.isAvailable();
        }

        private void emitted(T record) {
            emitted++;
            if (!pastHoldPoint && holdAfter.test(record, emitted)) {
                pastHoldPoint = true;
                holding = true;
                READERS_HELD.incrementAndGet();
            }
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public List<S> snapshotState(long checkpointId) {
            return reader.snapshotState(checkpointId);
        }

        @Override
        public void addSplits(List<S> splits) {
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            reader.handleSourceEvents(event);
        }

        @Override
        public void pauseOrResumeSplits(java.util.Collection<String> toPause, java.util.Collection<String> toResume) {
            reader.pauseOrResumeSplits(toPause, toResume);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }

        /** The reader's output, and the per-split outputs it creates, telling the gate of every record emitted. */
        private final class Watching implements ReaderOutput<T> {
            private final ReaderOutput<T> output;

            Watching(ReaderOutput<T> output) {
                this.output = output;
            }

            @Override
            public void collect(T record) {
                output.collect(record);
                emitted(record);
            }

            @Override
            public void collect(T record, long timestamp) {
                output.collect(record, timestamp);
                emitted(record);
            }

            @Override
            public void emitWatermark(Watermark watermark) {
                output.emitWatermark(watermark);
            }

            @Override
            public void markIdle() {
                output.markIdle();
            }

            @Override
            public void markActive() {
                output.markActive();
            }

            @Override
            public SourceOutput<T> createOutputForSplit(String splitId) {
                SourceOutput<T> split = output.createOutputForSplit(splitId);
                return new SourceOutput<>() {
                    @Override
                    public void collect(T record) {
                        split.collect(record);
                        emitted(record);
                    }

                    @Override
                    public void collect(T record, long timestamp) {
                        split.collect(record, timestamp);
                        emitted(record);
                    }

                    @Override
                    public void emitWatermark(Watermark watermark) {
                        split.emitWatermark(watermark);
                    }

                    @Override
                    public void markIdle() {
                        split.markIdle();
                    }

                    @Override
                    public void markActive() {
                        split.markActive();
                    }
                };
            }

            @Override
            public void releaseOutputForSplit(String splitId) {
                output.releaseOutputForSplit(splitId);
            }
        }
    }
}
