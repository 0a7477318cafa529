package io.impressiondedup.local;

import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Passes records through and {@link InputGate#open() opens the input gate} once every subtask of the operator it
 * follows has forwarded a watermark that meets the test's condition. Put right after an operator, it sees that
 * operator's own watermark: an operator forwards a watermark only after it has advanced to it, and watermarks only
 * rise, so from the opening on every record that operator processes meets the condition too. A watermark observed
 * at the sources would not do: another source's watermark can still be on its way when a record overtakes it.
 *
 * <p>State is static: the job runs on a MiniCluster in the test's JVM, one test at a time ({@link #reset()}).
 */
final class OpenGateAtWatermark<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T> {

    private static final long serialVersionUID = 1L;
    /** The latest watermark each subtask forwarded. */
    private static final Map<Integer, Long> WATERMARKS = new ConcurrentHashMap<>();
    /** The lowest of {@link #WATERMARKS} when the gate opened, {@link Long#MIN_VALUE} before. */
    private static volatile long watermarkAtOpening = Long.MIN_VALUE;

    /** What the watermark must meet; e.g. "a record this old is late". */
    @FunctionalInterface
    interface Condition extends Serializable {
        boolean test(long watermark);
    }

    private final Condition condition;
    private final int subtasks;

    OpenGateAtWatermark(Condition condition, int subtasks) {
        this.condition = condition;
        this.subtasks = subtasks;
    }

    static void reset() {
        WATERMARKS.clear();
        watermarkAtOpening = Long.MIN_VALUE;
    }

    static long watermarkAtOpening() {
        return watermarkAtOpening;
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        output.collect(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        WATERMARKS.put(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), mark.getTimestamp());
        if (InputGate.isOpen() || WATERMARKS.size() < subtasks) {
            return;
        }
        long lowest = Long.MAX_VALUE;
        for (long watermark : WATERMARKS.values()) {
            lowest = Math.min(lowest, watermark);
        }
        if (condition.test(lowest)) {
            watermarkAtOpening = lowest;
            InputGate.open();
        }
    }
}
