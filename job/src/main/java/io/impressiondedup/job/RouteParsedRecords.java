package io.impressiondedup.job;

import io.impressiondedup.operators.dedup.metrics.DeadLetterMetric;
import io.impressiondedup.operators.dedup.metrics.Tally;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits what the source parsed: impressions go on to dedup, dead letters to {@link #DEAD_LETTERS}.
 * Counts both ({@link Tally}: a metric and an accumulator of the same name each: {@code input} and
 * {@code dead-lettered}; per reason the accumulator {@code dead-lettered.<reason>} and the counter {@link
 * DeadLetterMetric} labelled with the reason, which the dedup operator also keeps for {@code late}), and logs its share of the
 * account at every completed checkpoint and at close. Exports the job's {@link LongestSafeOutage} as
 * the gauge {@value LongestSafeOutage#METRIC}: a job-side operator every deployment has, next to
 * the input count an outage alert already watches.
 */
public final class RouteParsedRecords extends ProcessFunction<ParsedRecord, Impression> implements CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RouteParsedRecords.class);

    public static final String UID = "route-parsed-records";
    public static final String NAME = "Route parsed records";
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters", DeadLetter.TYPE_INFO);

    private final long longestSafeOutageMs;
    private transient Tally input;
    private transient Tally deadLettered;
    private transient Map<DeadLetterReason, Tally> byReason;

    public RouteParsedRecords(LongestSafeOutage longestSafeOutage) {
        this.longestSafeOutageMs = longestSafeOutage.millis();
    }

    @Override
    public void open(OpenContext context) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        metrics.gauge(LongestSafeOutage.METRIC, (Gauge<Long>) () -> longestSafeOutageMs);
        input = Tally.register(Accounting.INPUT, metrics, getRuntimeContext());
        deadLettered = Tally.register(Accounting.DEAD_LETTERED, metrics, getRuntimeContext());
        byReason = new EnumMap<>(DeadLetterReason.class);
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            if (reason != DeadLetterReason.LATE) { // late records are counted by the dedup operator
                byReason.put(reason, Tally.register(Accounting.deadLetteredAccumulator(reason),
                        DeadLetterMetric.register(metrics, reason), getRuntimeContext()));
            }
        }
    }

    @Override
    public void processElement(ParsedRecord record, Context context, Collector<Impression> out) {
        input.inc();
        if (record.isImpression()) {
            out.collect(record.impression());
        } else {
            DeadLetter deadLetter = record.deadLetter();
            deadLettered.inc();
            byReason.get(deadLetter.reason()).inc();
            context.output(DEAD_LETTERS, deadLetter);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        LOG.info("Checkpoint {}, parse subtask {}: {}", checkpointId, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), share());
    }

    /** The subtask's final share of the account, for runs whose caller does not wait for the result (detached). */
    @Override
    public void close() throws Exception {
        if (input != null) {
            LOG.info("Final share, parse subtask {}: {}", getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), share());
        }
        super.close();
    }

    private String share() {
        Map<DeadLetterReason, Long> reasons = new EnumMap<>(DeadLetterReason.class);
        byReason.forEach((reason, tally) -> reasons.put(reason, tally.count()));
        return String.format("input %d = impressions %d + dead-lettered %d %s", input.count(), input.count() - deadLettered.count(),
                deadLettered.count(), reasons);
    }
}
