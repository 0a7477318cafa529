package io.impressiondedup.operators.dedup.metrics;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * One count of the job's account, incremented in one place and exported twice: as a metric (for
 * dashboards, per subtask) and as an accumulator of the same name (summed over subtasks by Flink,
 * live in the REST API and final in the job result, for the bounded run's summary). Both always hold
 * the same number, so the summary and the dashboards cannot disagree. Where a dashboard wants the count as a labelled
 * series rather than a name of its own (dead letters by reason, {@link DeadLetterMetric}), the metric is given and only
 * the accumulator is named.
 */
public final class Tally {

    private final Counter metric;
    private final LongCounter accumulator;

    private Tally(Counter metric, LongCounter accumulator) {
        this.metric = metric;
        this.accumulator = accumulator;
    }

    /** Registers the counter {@code name} in {@code group} and the accumulator {@code name} in {@code context}. */
    public static Tally register(String name, MetricGroup group, RuntimeContext context) {
        LongCounter accumulator = new LongCounter();
        context.addAccumulator(name, accumulator);
        return new Tally(group.counter(name), accumulator);
    }

    /** Exports {@code metric} (already registered) and the accumulator {@code accumulatorName} in {@code context}. */
    public static Tally register(String accumulatorName, Counter metric, RuntimeContext context) {
        LongCounter accumulator = new LongCounter();
        context.addAccumulator(accumulatorName, accumulator);
        return new Tally(metric, accumulator);
    }

    public void inc() {
        metric.inc();
        accumulator.add(1L);
    }

    public long count() {
        return metric.getCount();
    }
}
