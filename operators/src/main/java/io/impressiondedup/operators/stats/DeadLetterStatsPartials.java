package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Turns each of the router's dead letters (malformed, oversized, future-timestamp) into a one-record partial
 * of its reconciliation row, with no close time ({@link StatsKey#UNASSIGNED}): the {@link StatsCombiner}
 * picks the row at its own watermark. Runs chained to the source, stateless.
 *
 * <p><b>Why not pre-aggregated like the outcomes.</b> A pre-aggregator closes a row only when the watermark
 * of its own subtask passes it, and a source subtask whose partitions deliver only dead letters is idle (its
 * watermark never moves), and one that owns no partition finishes at once: their rows would never close. The
 * combiner's watermark is the job's progress, whichever subtask read the dead letter. Dead letters are rare,
 * so sending each one costs nothing measurable. And an operator chained to the source must keep no union
 * list state: Flink cannot checkpoint a task whose subtasks have partly finished if it does (a source subtask
 * without a partition finishes at once), so a bounded run would complete no checkpoint at all.
 *
 * <p><b>Far-future timestamps.</b> A dead letter counts in the hour of its Kafka timestamp ({@link
 * HourlyStats}), but a producer's clock can say year 9999, and every such hour would open a row no
 * watermark reaches. A timestamp more than {@code maxFutureSkew} (the job's {@code --max-future-skew}) ahead of
 * this operator's processing time is therefore counted at that bound instead: its row closes within the skew
 * of real time, rows stay bounded, and the record is still counted once. Each such record is counted in the
 * metric {@value #CLAMPED_METRIC}.
 *
 * <p><b>State.</b> None of its own. It keeps the id of the pre-aggregator that counts dead letters in jobs of state
 * v3 and earlier, and forwards the partials that operator had pending in a savepoint (operator list state {@value
 * StatsPreAggregator#PARTIALS}) once, so a restore of such a savepoint loses no count; that operator's union watermark state is
 * not read.
 */
public final class DeadLetterStatsPartials extends AbstractStreamOperator<StatsPartial>
        implements OneInputStreamOperator<DeadLetter, StatsPartial> {

    private static final long serialVersionUID = 1L;

    /** Stable id: that of the dead-letter pre-aggregator of jobs of state v3 and earlier, whose pending partials it forwards. Never change it. */
    public static final String UID = StatsPreAggregator.DEAD_LETTERS_UID;
    public static final String NAME = StatsPreAggregator.DEAD_LETTERS_NAME;
    /** Counter: dead letters counted at processing time + max future skew instead of their Kafka timestamp. */
    public static final String CLAMPED_METRIC = "stats-future-timestamps-clamped";

    private static final StatsClassifier<DeadLetter> CLASSIFIER = StatsClassifier.deadLetters();

    private final long maxFutureSkewMillis;

    private transient ListState<StatsPartial> restoredPartials;
    private transient List<StatsPartial> toForward;
    private transient Counter clamped;

    public DeadLetterStatsPartials(long maxFutureSkewMillis) {
        if (maxFutureSkewMillis < 0) {
            throw new IllegalArgumentException("max future skew must be 0 or positive, but was " + maxFutureSkewMillis + " ms");
        }
        this.maxFutureSkewMillis = maxFutureSkewMillis;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restoredPartials = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(StatsPreAggregator.PARTIALS, StatsSerializers.StatsPartialSerializer.INSTANCE));
        toForward = new ArrayList<>();
        restoredPartials.get().forEach(toForward::add);
    }

    @Override
    public void open() throws Exception {
        super.open();
        clamped = getMetricGroup().counter(CLAMPED_METRIC);
    }

    @Override
    public void processElement(StreamRecord<DeadLetter> element) {
        forwardRestored();
        DeadLetter letter = element.getValue();
        long latestTrusted = TimeBuckets.saturatedAdd(getProcessingTimeService().getCurrentProcessingTime(), maxFutureSkewMillis);
        long statsTime = CLASSIFIER.statsTime(letter);
        if (statsTime > latestTrusted) {
            statsTime = latestTrusted;
            clamped.inc();
        }
        StatsCounts counts = new StatsCounts();
        CLASSIFIER.count(letter, counts);
        StatsKey key = new StatsKey(CLASSIFIER.topic(letter), CLASSIFIER.partition(letter), HourlyStats.hourStartOf(statsTime), StatsKey.UNASSIGNED);
        output.collect(new StreamRecord<>(new StatsPartial(key, counts)));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        forwardRestored();
        super.processWatermark(mark);
    }

    @Override
    public void finish() throws Exception {
        forwardRestored();
        super.finish();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        restoredPartials.update(new ArrayList<>(toForward));
    }

    /** Sends the restored partials on, once, before anything this operator counts itself. */
    private void forwardRestored() {
        if (toForward.isEmpty()) {
            return;
        }
        for (StatsPartial partial : toForward) {
            output.collect(new StreamRecord<>(partial));
        }
        toForward.clear();
    }
}
