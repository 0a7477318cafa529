package io.impressiondedup.job;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import java.util.EnumMap;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits what the source parsed: impressions go on to dedup, dead letters to {@link #DEAD_LETTERS}.
 * Counts both, as metrics ({@code input}, {@code dead-lettered}) and as accumulators for the job's
 * accounting, and logs its share of the account at every completed checkpoint.
 */
public final class RouteParsedRecords extends ProcessFunction<ParsedRecord, Impression> implements CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RouteParsedRecords.class);

    public static final String UID = "route-parsed-records";
    public static final String NAME = "Route parsed records";
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters", DeadLetter.TYPE_INFO);

    private transient LongCounter input;
    private transient LongCounter deadLettered;
    private transient Map<DeadLetterReason, LongCounter> byReason;
    private transient Counter inputMetric;
    private transient Counter deadLetteredMetric;

    @Override
    public void open(OpenContext context) {
        input = new LongCounter();
        deadLettered = new LongCounter();
        byReason = new EnumMap<>(DeadLetterReason.class);
        getRuntimeContext().addAccumulator(Accounting.INPUT, input);
        getRuntimeContext().addAccumulator(Accounting.DEAD_LETTERED, deadLettered);
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            if (reason != DeadLetterReason.LATE) {
                LongCounter counter = new LongCounter();
                byReason.put(reason, counter);
                getRuntimeContext().addAccumulator(Accounting.deadLetteredAccumulator(reason), counter);
            }
        }
        inputMetric = getRuntimeContext().getMetricGroup().counter("input");
        deadLetteredMetric = getRuntimeContext().getMetricGroup().counter("dead-lettered");
    }

    @Override
    public void processElement(ParsedRecord record, Context context, Collector<Impression> out) {
        input.add(1);
        inputMetric.inc();
        if (record.isImpression()) {
            out.collect(record.impression());
        } else {
            DeadLetter deadLetter = record.deadLetter();
            deadLettered.add(1);
            deadLetteredMetric.inc();
            byReason.get(deadLetter.reason()).add(1);
            context.output(DEAD_LETTERS, deadLetter);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        LOG.info("Checkpoint {}, parse subtask {}: input {} = impressions {} + dead-lettered {} {}", checkpointId,
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), input.getLocalValue(),
                input.getLocalValue() - deadLettered.getLocalValue(), deadLettered.getLocalValue(), byReason);
    }
}
