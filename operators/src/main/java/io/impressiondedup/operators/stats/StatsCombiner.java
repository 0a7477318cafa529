package io.impressiondedup.operators.stats;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Sums the partial counts of each reconciliation row from every {@link StatsPreAggregator} subtask and
 * writes the row once, when the watermark reaches its close time (an event-time timer). Keyed by the
 * row's (topic, partition, hour) ({@link StatsKey#hourKey()}), with the pending rows of that hour by close
 * time in keyed state. Every sender emits its partial of a row before it forwards a watermark at or past
 * the row's close time, and this operator's watermark is the lowest of its active senders', so the timer
 * fires after the last partial has arrived.
 *
 * <p><b>A row is never written twice.</b> Two cases get a partial whose row is already written, and this
 * operator moves it to the next amendment ({@link HourlyStats#closeTimeOf} at its own watermark) instead
 * of writing a second row under the same key:
 * <ul>
 *   <li>an idle sender (a source subtask whose partitions only deliver dead letters, which never move the
 *       watermark): Flink's watermark ignores idle channels, so the row may close while the idle sender
 *       still holds a partial of it, sent when the sender becomes active again;
 *   <li>a restore: Flink does not restore watermarks, and the pre-aggregators' floor is the lowest sender's
 *       watermark, which an idle sender holds back. This operator keeps its own watermark in union list
 *       state ({@value #WATERMARK}); every row with a close time at or below it was written before the
 *       checkpoint, so after a restore that is the floor under which a partial counts as written.
 * </ul>
 * Keyed state and timers are checkpointed: a restore neither loses nor repeats a row (the sink's transaction
 * of a row written after the last checkpoint is aborted, and the row written again).
 *
 * <p><b>Partials without a row.</b> The router's dead letters arrive one by one with no close time ({@link
 * StatsKey#UNASSIGNED}): this operator picks their row at its own watermark, the lowest of all senders', so
 * they never wait for the watermark of the source subtask that read them, which an idle or finished
 * subtask never moves ({@code DeadLetterStatsPartials}).
 *
 * <p><b>End of event time.</b> The watermark {@code Long.MAX_VALUE} (a bounded input read to its end, or
 * {@code stop --drain}) writes every pending row at once, so a job stopped for good leaves none unwritten; it
 * is not taken as this operator's watermark and fires no timer. The highest close time it wrote is kept per
 * (topic, partition, hour) in keyed state ({@value #WRITTEN_AT_END}): if the savepoint is resumed, a partial
 * of such a row (the resumed pre-aggregators start again from the watermark the data had reached, so they can
 * pick the same complete row) goes to the next amendment instead of writing that row a second time. The mark
 * is dropped when the watermark reaches its close time, as the row's timer, left in place, fires.
 */
public final class StatsCombiner extends AbstractStreamOperator<StatsRow>
        implements OneInputStreamOperator<StatsPartial, StatsRow>, Triggerable<StatsKey, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    /** Stable id: savepoints map state to it. Never change it. */
    public static final String UID = "stats-combine-rows";
    public static final String NAME = "Stats: combine hourly rows";
    /** Keyed (by {@link StatsKey#hourKey()}): {@code MapState<Long, StatsCounts>}, the hour's pending rows by close time. */
    public static final String ROWS = "stats-pending-rows";
    /** Timer service of the rows' close times. */
    public static final String TIMERS = "stats-row-close";
    /** Operator union list state: each subtask's watermark at the snapshot. */
    public static final String WATERMARK = "stats-combiner-watermark";
    /** Keyed ({@link StatsKey#hourKey()}): {@code ValueState<Long>}, the last close time of a row written at the end of event time. */
    public static final String WRITTEN_AT_END = "stats-rows-written-at-end";

    private final long statsDelayMillis;

    private transient MapState<Long, StatsCounts> rows;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient ValueState<Long> writtenAtEnd;
    private transient ListState<Long> watermarkState;
    /** Rows closing at or before this were written before the checkpoint this operator was restored from. */
    private transient long writtenUpTo;

    public StatsCombiner(long statsDelayMillis) {
        this.statsDelayMillis = statsDelayMillis;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        watermarkState = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(WATERMARK, LongSerializer.INSTANCE));
        writtenUpTo = Long.MIN_VALUE;
        for (Long stored : watermarkState.get()) {
            if (stored != Long.MAX_VALUE) { // the end of time, saved when drained by a job of state v3 or earlier: every row was written at it, none after
                writtenUpTo = Math.max(writtenUpTo, stored);
            }
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        rows = getPartitionedState(new MapStateDescriptor<>(ROWS, LongSerializer.INSTANCE, StatsSerializers.StatsCountsSerializer.INSTANCE));
        writtenAtEnd = getPartitionedState(new ValueStateDescriptor<>(WRITTEN_AT_END, LongSerializer.INSTANCE));
        timers = getInternalTimerService(TIMERS, VoidNamespaceSerializer.INSTANCE, this);
    }

    @Override
    public void processElement(StreamRecord<StatsPartial> element) throws Exception {
        StatsPartial partial = element.getValue();
        long closeTime = partial.key().closeTime();
        long written = watermark();
        Long lastWrittenAtEnd = writtenAtEnd.value();
        if (lastWrittenAtEnd != null) {
            written = Math.max(written, lastWrittenAtEnd);
        }
        if (closeTime == StatsKey.UNASSIGNED || closeTime <= written) {
            closeTime = HourlyStats.closeTimeOf(partial.key().hourStart(), statsDelayMillis, written);
        }
        StatsCounts sum = rows.get(closeTime);
        if (sum == null) {
            sum = new StatsCounts();
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, closeTime);
        }
        sum.addAll(partial.counts());
        rows.put(closeTime, sum);
    }

    @Override
    public void onEventTime(InternalTimer<StatsKey, VoidNamespace> timer) throws Exception {
        long closeTime = timer.getTimestamp();
        StatsCounts sum = rows.get(closeTime);
        if (sum != null) {
            StatsKey key = timer.getKey().closingAt(closeTime);
            output.collect(new StreamRecord<>(new StatsRow(key, sum, key.isComplete(statsDelayMillis))));
            rows.remove(closeTime);
        }
        Long lastWrittenAtEnd = writtenAtEnd.value();
        if (lastWrittenAtEnd != null && lastWrittenAtEnd <= closeTime) {
            writtenAtEnd.clear(); // the watermark floor covers it from now on
        }
    }

    /** The end of event time writes every pending row (see the class comment); any other watermark fires the timers it reaches. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() != Long.MAX_VALUE) {
            super.processWatermark(mark);
            return;
        }
        List<StatsKey> pendingHours;
        KeyedStateBackend<StatsKey> backend = getKeyedStateBackend();
        try (Stream<StatsKey> keys = backend.getKeys(ROWS, VoidNamespace.INSTANCE)) {
            pendingHours = keys.collect(Collectors.toList());
        }
        for (StatsKey hour : pendingHours) {
            setCurrentKey(hour);
            long last = Long.MIN_VALUE;
            for (Map.Entry<Long, StatsCounts> row : rows.entries()) {
                StatsKey key = hour.closingAt(row.getKey());
                output.collect(new StreamRecord<>(new StatsRow(key, row.getValue(), key.isComplete(statsDelayMillis))));
                last = Math.max(last, row.getKey());
            }
            rows.clear();
            Long before = writtenAtEnd.value();
            writtenAtEnd.update(before == null ? last : Math.max(before, last));
        }
        output.emitWatermark(mark);
    }

    @Override
    public void onProcessingTime(InternalTimer<StatsKey, VoidNamespace> timer) {
        // no processing-time timers
    }

    /** The watermark at or below which every row was written: this run's, or the restored one. */
    private long watermark() {
        return Math.max(timers.currentWatermark(), writtenUpTo);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        watermarkState.update(List.of(watermark()));
    }
}
