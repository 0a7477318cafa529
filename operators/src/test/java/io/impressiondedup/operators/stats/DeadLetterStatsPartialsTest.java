package io.impressiondedup.operators.stats;

import static io.impressiondedup.operators.stats.StatsHarness.HOUR;
import static io.impressiondedup.operators.stats.StatsHarness.MINUTE;
import static io.impressiondedup.operators.stats.StatsHarness.T0;
import static io.impressiondedup.operators.stats.StatsHarness.TOPIC;
import static io.impressiondedup.operators.stats.StatsHarness.deadLetter;
import static io.impressiondedup.operators.stats.StatsHarness.forward;
import static io.impressiondedup.operators.stats.StatsHarness.takeRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The router's dead letters reach their rows at the job's watermark, whatever the watermark of the subtask that read them. */
class DeadLetterStatsPartialsTest {

    static final long SKEW = HOUR;

    static OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> counter() throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new DeadLetterStatsPartials(SKEW), StatsHarness.MAX_PARALLELISM, 1, 0);
    }

    static StatsCounts deadLettered(DeadLetterReason reason, int n) {
        StatsCounts counts = new StatsCounts();
        for (int i = 0; i < n; i++) {
            counts.addDeadLetter(reason);
        }
        return counts;
    }

    /**
     * The source subtask that read the dead letters delivers no impression, so it sends no watermark at all
     * (idle); the combiner's watermark (here: that of the other senders) closes their row.
     */
    @Test
    void deadLettersOfASubtaskWithoutWatermarksAreWrittenWhenTheCombinersWatermarkPassesTheirHour() throws Exception {
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> d = counter();
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            d.setProcessingTime(T0);
            d.open();
            c.open();
            d.processElement(new StreamRecord<>(deadLetter(3, T0 + MINUTE, DeadLetterReason.MALFORMED)));
            d.processElement(new StreamRecord<>(deadLetter(3, T0 + 2 * MINUTE, DeadLetterReason.MALFORMED)));
            forward(d, c);
            c.processWatermark(new Watermark(T0 + HOUR - 1));
            assertThat(takeRows(c)).isEmpty();

            c.processWatermark(new Watermark(T0 + HOUR));

            assertThat(takeRows(c)).containsExactly(
                    new StatsRow(new StatsKey(TOPIC, 3, T0, T0 + HOUR), deadLettered(DeadLetterReason.MALFORMED, 2), true));
        }
    }

    /** A dead letter counted after its hour's complete row was written goes to an amendment, like a late impression. */
    @Test
    void aDeadLetterOfAnHourAlreadyWrittenGoesToTheNextAmendment() throws Exception {
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> d = counter();
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            d.setProcessingTime(T0 + 3 * HOUR);
            d.open();
            c.open();
            c.processWatermark(new Watermark(T0 + HOUR + 30 * MINUTE));
            d.processElement(new StreamRecord<>(deadLetter(0, T0 + MINUTE, DeadLetterReason.OVERSIZED)));
            forward(d, c);
            c.processWatermark(new Watermark(T0 + 2 * HOUR));

            assertThat(takeRows(c)).containsExactly(
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), deadLettered(DeadLetterReason.OVERSIZED, 1), false));
        }
    }

    /**
     * Kafka timestamps are the producer's: one from year 9999 would open a row no watermark reaches. Beyond
     * processing time + the future skew the dead letter counts at that bound: exactly at it, in its own hour;
     * one millisecond past it, clamped.
     */
    @Test
    void aDeadLetterDatedBeyondProcessingTimePlusTheSkewCountsAtThatBound() throws Exception {
        long now = T0 + 10 * MINUTE;
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> d = counter()) {
            d.setProcessingTime(now);
            d.open();
            d.processElement(new StreamRecord<>(deadLetter(0, now + SKEW, DeadLetterReason.FUTURE_TIMESTAMP)));
            d.processElement(new StreamRecord<>(deadLetter(0, now + SKEW + 1, DeadLetterReason.FUTURE_TIMESTAMP)));
            d.processElement(new StreamRecord<>(deadLetter(0, Long.MAX_VALUE, DeadLetterReason.FUTURE_TIMESTAMP)));

            assertThat(StatsHarness.takePartials(d)).extracting(p -> p.key().hourStart())
                    .containsOnly(T0 + HOUR);
            assertThat(((DeadLetterStatsPartials) d.getOperator()).getMetricGroup()).isNotNull();
        }
    }

    /**
     * The operator runs chained to the source, whose subtasks without a partition finish at once in a bounded
     * run; Flink checkpoints no task in that state whose operators keep union list state. It keeps none.
     */
    @Test
    void itKeepsNoUnionListState() throws Exception {
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> d = counter()) {
            d.open();
            d.processElement(new StreamRecord<>(deadLetter(0, T0, DeadLetterReason.MALFORMED)));
            OperatorSubtaskState state = d.snapshot(1, 1);

            List<String> union = new ArrayList<>();
            for (OperatorStateHandle handle : state.getManagedOperatorState()) {
                handle.getStateNameToPartitionOffsets().forEach((name, meta) -> {
                    if (meta.getDistributionMode() == OperatorStateHandle.Mode.UNION) {
                        union.add(name);
                    }
                });
            }
            assertThat(union).isEmpty();
        }
    }

    /** A savepoint of the pre-aggregator that counted dead letters before restores into this operator, whose id it keeps: no pending count is lost. */
    @Test
    void thePendingPartialsOfTheFormerDeadLetterPreAggregatorAreForwardedOnce() throws Exception {
        OperatorSubtaskState legacy;
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> old = new OneInputStreamOperatorTestHarness<>(
                new StatsPreAggregator<>(StatsClassifier.deadLetters(), 0), StatsHarness.MAX_PARALLELISM, 1, 0)) {
            old.open();
            old.processElement(new StreamRecord<>(deadLetter(2, T0 + MINUTE, DeadLetterReason.MALFORMED)));
            legacy = old.snapshot(1, 1);
        }
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> d = counter()) {
            d.initializeState(legacy);
            d.open();
            d.processWatermark(new Watermark(T0));
            d.processWatermark(new Watermark(T0 + MINUTE));

            assertThat(StatsHarness.takePartials(d)).containsExactly(
                    new StatsPartial(new StatsKey(TOPIC, 2, T0, T0 + HOUR), deadLettered(DeadLetterReason.MALFORMED, 1)));
        }
    }
}
