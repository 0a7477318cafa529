package io.impressiondedup.operators.stats;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Sums the partial counts of one reconciliation row ({@link StatsKey}) from every {@link StatsPreAggregator}
 * subtask and writes the row once, when the watermark reaches its close time (an event-time timer).
 * Every sender emits its partial of a row before it forwards a watermark at or past the row's close
 * time, and this operator's watermark is the lowest of its senders', so the timer fires after the last
 * partial has arrived. The key includes the close time, so each row is written by exactly one timer;
 * keyed state and timers are checkpointed, so a restore neither loses nor repeats a row (the sink's
 * transaction of a row written after the last checkpoint is aborted and the row written again).
 */
public final class StatsCombiner extends KeyedProcessFunction<StatsKey, StatsPartial, StatsRow> {

    private static final long serialVersionUID = 1L;

    /** Stable id: savepoints map state to it. Never change it. */
    public static final String UID = "stats-combine-rows";
    public static final String NAME = "Stats: combine hourly rows";
    /** Keyed state: the row's counts so far. */
    public static final String COUNTS = "stats-row-counts";

    private final long statsDelayMillis;
    private transient ValueState<StatsCounts> counts;

    public StatsCombiner(long statsDelayMillis) {
        this.statsDelayMillis = statsDelayMillis;
    }

    @Override
    public void open(OpenContext context) {
        counts = getRuntimeContext().getState(new ValueStateDescriptor<>(COUNTS, StatsSerializers.StatsCountsSerializer.INSTANCE));
    }

    @Override
    public void processElement(StatsPartial partial, Context context, Collector<StatsRow> out) throws Exception {
        StatsCounts sum = counts.value();
        if (sum == null) {
            sum = new StatsCounts();
            context.timerService().registerEventTimeTimer(partial.key().closeTime());
        }
        sum.addAll(partial.counts());
        counts.update(sum);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext context, Collector<StatsRow> out) throws Exception {
        StatsKey key = context.getCurrentKey();
        StatsCounts sum = counts.value();
        if (sum != null) {
            out.collect(new StatsRow(key, sum, key.isComplete(statsDelayMillis)));
            counts.clear();
        }
    }
}
