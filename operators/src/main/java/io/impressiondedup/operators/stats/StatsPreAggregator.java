package io.impressiondedup.operators.stats;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Counts records into reconciliation rows ({@link HourlyStats}) without a shuffle: it runs chained (forward)
 * behind the operator whose records it counts, keeps {@code (topic, partition, hour, closeTime) -> counts}
 * on the heap, and on a watermark {@code W} emits the partial counts of every row with {@code closeTime <=
 * W} <b>before</b> forwarding {@code W}. The {@link StatsCombiner} downstream fires a row's timer only when
 * its watermark, the lowest of all its senders', reaches the close time; every sender has emitted its
 * partial of that row before, so the row is whole when written.
 *
 * <p><b>State.</b> The pending counts, operator list state {@value #PARTIALS} (redistributed on rescale: a
 * pending row may move to any subtask, as only the combiner sums them), and this subtask's watermark, union
 * list state {@value #WATERMARK}. After a restore the lowest stored watermark is a floor under the
 * watermark that picks a record's row: a row the combiner wrote before the checkpoint had a close time
 * at or below every sender's watermark then, so no record counted after the restore goes to it (it would
 * write the hour's complete row a second time); it goes to the next amendment instead.
 */
public final class StatsPreAggregator<T> extends AbstractStreamOperator<StatsPartial> implements OneInputStreamOperator<T, StatsPartial> {

    private static final long serialVersionUID = 1L;

    /** Stable ids: savepoints map state to them. Never change them. */
    public static final String OUTCOMES_UID = "stats-pre-aggregate-outcomes";
    public static final String OUTCOMES_NAME = "Stats: count dedup outcomes";
    public static final String DEAD_LETTERS_UID = "stats-pre-aggregate-dead-letters";
    public static final String DEAD_LETTERS_NAME = "Stats: count dead letters";

    /** Operator list state: the pending partial counts. */
    public static final String PARTIALS = "stats-pending-partials";
    /** Operator union list state: each subtask's watermark at the snapshot. */
    public static final String WATERMARK = "stats-watermark";

    private final StatsClassifier<T> classifier;
    private final long statsDelayMillis;

    private transient Map<StatsKey, StatsCounts> pending;
    private transient ListState<StatsPartial> partialsState;
    private transient ListState<Long> watermarkState;
    private transient long watermarkFloor;
    private transient long watermark;
    /** The row of the previous record: consecutive records mostly share one, and this spares a map lookup. */
    private transient StatsKey lastKey;
    private transient StatsCounts lastCounts;

    public StatsPreAggregator(StatsClassifier<T> classifier, long statsDelayMillis) {
        this.classifier = Objects.requireNonNull(classifier);
        if (statsDelayMillis < 0) {
            throw new IllegalArgumentException("stats delay must be 0 or positive, but was " + statsDelayMillis + " ms");
        }
        this.statsDelayMillis = statsDelayMillis;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        pending = new HashMap<>();
        partialsState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(PARTIALS, StatsSerializers.StatsPartialSerializer.INSTANCE));
        watermarkState = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>(WATERMARK, LongSerializer.INSTANCE));
        for (StatsPartial partial : partialsState.get()) {
            pending.computeIfAbsent(partial.key(), k -> new StatsCounts()).addAll(partial.counts());
        }
        watermarkFloor = Long.MIN_VALUE;
        boolean first = true;
        for (Long stored : watermarkState.get()) {
            if (stored == Long.MAX_VALUE) {
                continue; // the end of time, saved when drained by a job of state v3 or earlier: no floor (see processWatermark)
            }
            watermarkFloor = first ? stored : Math.min(watermarkFloor, stored);
            first = false;
        }
        watermark = watermarkFloor;
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        T record = element.getValue();
        String topic = classifier.topic(record);
        int partition = classifier.partition(record);
        long hourStart = HourlyStats.hourStartOf(classifier.statsTime(record));
        long closeTime = HourlyStats.closeTimeOf(hourStart, statsDelayMillis, watermark);
        StatsCounts counts;
        if (lastKey != null && lastKey.partition() == partition && lastKey.hourStart() == hourStart && lastKey.closeTime() == closeTime
                && lastKey.topic().equals(topic)) {
            counts = lastCounts;
        } else {
            StatsKey key = new StatsKey(topic, partition, hourStart, closeTime);
            counts = pending.computeIfAbsent(key, k -> new StatsCounts());
            lastKey = key;
            lastCounts = counts;
        }
        classifier.count(record, counts);
    }

    /**
     * Emits the rows the watermark closes, then forwards it: the order the combiner relies on. The end of event
     * time ({@code Long.MAX_VALUE}: a bounded input read to its end, {@code stop --drain}) emits every pending row
     * but is not kept as this subtask's watermark: a savepoint taken after it resumes from the watermark the data
     * had reached, and the combiner moves what it already wrote to amendments ({@link StatsCombiner}).
     */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        emitClosedRows(mark.getTimestamp());
        if (mark.getTimestamp() != Long.MAX_VALUE) {
            watermark = Math.max(watermark, mark.getTimestamp());
        }
        super.processWatermark(mark);
    }

    private void emitClosedRows(long upTo) {
        boolean emitted = false;
        for (Iterator<Map.Entry<StatsKey, StatsCounts>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<StatsKey, StatsCounts> row = it.next();
            if (row.getKey().closeTime() <= upTo) {
                output.collect(new StreamRecord<>(new StatsPartial(row.getKey(), row.getValue())));
                it.remove();
                emitted = true;
            }
        }
        if (emitted) {
            lastKey = null;
            lastCounts = null;
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<StatsPartial> partials = new ArrayList<>(pending.size());
        pending.forEach((key, counts) -> partials.add(new StatsPartial(key, counts.copy())));
        partialsState.update(partials);
        watermarkState.update(List.of(watermark));
    }

    /** Rows pending in this subtask: for tests. */
    int pendingRows() {
        return pending.size();
    }
}
