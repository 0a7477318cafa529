package io.impressiondedup.operators.stats;

import static io.impressiondedup.operators.stats.StatsHarness.HOUR;
import static io.impressiondedup.operators.stats.StatsHarness.MINUTE;
import static io.impressiondedup.operators.stats.StatsHarness.T0;
import static io.impressiondedup.operators.stats.StatsHarness.TOPIC;
import static io.impressiondedup.operators.stats.StatsHarness.counts;
import static io.impressiondedup.operators.stats.StatsHarness.forward;
import static io.impressiondedup.operators.stats.StatsHarness.outcome;
import static io.impressiondedup.operators.stats.StatsHarness.takeRows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The combiner writes each row once, whole, when the watermark reaches its close time; pre-aggregator and combiner together. */
class StatsCombinerTest {

    @Test
    void partialsOfOneRowFromTwoSendersMakeOneRowWrittenAtItsCloseTime() throws Exception {
        StatsKey key = new StatsKey(TOPIC, 2, T0, T0 + HOUR);
        try (KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            c.open();
            c.processElement(new StreamRecord<>(new StatsPartial(key, counts(3, 1, 0))));
            c.processElement(new StreamRecord<>(new StatsPartial(key, counts(2, 0, 1))));
            c.processWatermark(new Watermark(T0 + HOUR - 1));
            assertThat(takeRows(c)).isEmpty();

            c.processWatermark(new Watermark(T0 + HOUR));

            assertThat(takeRows(c)).containsExactly(new StatsRow(key, counts(5, 1, 1), true));
            assertThat(c.numKeyedStateEntries()).isZero();
        }
    }

    /**
     * An hour whose records straddle its close: the complete row holds what was counted before the
     * watermark passed the hour end, the amendment what came after; together every record once.
     */
    @Test
    void recordsArrivingAfterTheCompleteRowMakeOneAmendmentPerHourOfWatermarkProgress() throws Exception {
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0);
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            p.open();
            c.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + MINUTE, StatsOutcome.UNIQUE)));
            p.processWatermark(new Watermark(T0 + HOUR + MINUTE));
            p.processElement(new StreamRecord<>(outcome(0, T0 + 2 * MINUTE, StatsOutcome.UNIQUE)));
            p.processWatermark(new Watermark(T0 + HOUR + 30 * MINUTE));
            p.processElement(new StreamRecord<>(outcome(0, T0 + 3 * MINUTE, StatsOutcome.DUPLICATE)));
            p.processWatermark(new Watermark(T0 + 2 * HOUR + 30 * MINUTE));
            p.processElement(new StreamRecord<>(outcome(0, T0 + 4 * MINUTE, StatsOutcome.LATE)));
            p.processWatermark(new Watermark(T0 + 3 * HOUR));
            forward(p, c);

            assertThat(takeRows(c)).containsExactly(
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + HOUR), counts(1, 0, 0), true),
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), counts(1, 1, 0), false),
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + 3 * HOUR), counts(0, 0, 1), false));
        }
    }

    /** Restored in the middle (a row pending in the combiner, another in the pre-aggregator): nothing lost, no row twice. */
    @Test
    void aSnapshotAndRestoreInTheMiddleLosesNoCountAndWritesNoRowTwice() throws Exception {
        OperatorSubtaskState preState;
        OperatorSubtaskState combinerState;
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0);
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            p.open();
            c.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + MINUTE, StatsOutcome.UNIQUE)));
            p.processElement(new StreamRecord<>(outcome(0, T0 + HOUR + MINUTE, StatsOutcome.UNIQUE)));
            p.processWatermark(new Watermark(T0 + HOUR));
            // The combiner got the partial of T0's complete row but not yet the watermark that writes it.
            c.processElement(new StreamRecord<>((StatsPartial) ((StreamRecord<?>) p.getOutput().poll()).getValue()));
            preState = p.snapshot(1, 1);
            combinerState = c.snapshot(1, 1);
            assertThat(takeRows(c)).isEmpty();
        }
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0);
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            p.initializeState(preState);
            c.initializeState(combinerState);
            p.open();
            c.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + 2 * MINUTE, StatsOutcome.DUPLICATE)));
            p.processWatermark(new Watermark(Long.MAX_VALUE));
            forward(p, c);

            List<StatsRow> rows = takeRows(c);
            assertThat(rows).containsExactlyInAnyOrder(
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + HOUR), counts(1, 0, 0), true),
                    new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), counts(0, 1, 0), false),
                    new StatsRow(new StatsKey(TOPIC, 0, T0 + HOUR, T0 + 2 * HOUR), counts(1, 0, 0), true));
        }
    }

    /**
     * An idle sender (a source subtask whose partitions deliver only dead letters) does not hold the
     * combiner's watermark back, so a row can close while it still holds a partial of it: that partial
     * becomes the next amendment, never a second row under a written key.
     */
    @Test
    void aPartialArrivingAfterItsRowWasWrittenGoesToTheNextAmendmentNotASecondRow() throws Exception {
        StatsKey complete = new StatsKey(TOPIC, 1, T0, T0 + HOUR);
        try (KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            c.open();
            c.processElement(new StreamRecord<>(new StatsPartial(complete, counts(4, 0, 0))));
            c.processWatermark(new Watermark(T0 + HOUR + 5 * MINUTE));
            c.processElement(new StreamRecord<>(new StatsPartial(complete, counts(0, 2, 0)))); // from the sender that was idle
            c.processWatermark(new Watermark(T0 + 2 * HOUR));

            assertThat(takeRows(c)).containsExactly(
                    new StatsRow(complete, counts(4, 0, 0), true),
                    new StatsRow(complete.closingAt(T0 + 2 * HOUR), counts(0, 2, 0), false));
        }
    }

    /**
     * After a restore Flink's watermark starts from nothing; a sender whose floor is held back (by an idle
     * subtask, or a new pre-aggregator without state) sends a partial of a complete row the combiner wrote
     * before the checkpoint. The combiner's own restored watermark makes it an amendment.
     */
    @Test
    void afterARestoreAPartialOfARowWrittenBeforeTheCheckpointBecomesAnAmendment() throws Exception {
        StatsKey complete = new StatsKey(TOPIC, 0, T0, T0 + HOUR);
        OperatorSubtaskState state;
        try (KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            c.open();
            c.processElement(new StreamRecord<>(new StatsPartial(complete, counts(1, 0, 0))));
            c.processWatermark(new Watermark(T0 + HOUR));
            assertThat(takeRows(c)).containsExactly(new StatsRow(complete, counts(1, 0, 0), true));
            state = c.snapshot(1, 1);
        }
        try (KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            c.initializeState(state);
            c.open();
            c.processElement(new StreamRecord<>(new StatsPartial(complete, counts(1, 0, 0)))); // replayed after the checkpoint
            c.processWatermark(new Watermark(Long.MAX_VALUE));

            assertThat(takeRows(c)).containsExactly(new StatsRow(complete.closingAt(T0 + 2 * HOUR), counts(1, 0, 0), false));
        }
    }

    /**
     * {@code stop --drain}: the end of event time writes every pending row, the complete row of T0 among them;
     * the savepoint is resumed and a record of T0 arrives, behind the watermark the data had reached (so the
     * resumed pre-aggregator picks T0's complete row again). It must become an amendment, not a second complete row.
     */
    @Test
    void afterTheEndOfEventTimeEveryRowIsWrittenOnceAndAResumedRecordOfItsHourBecomesAnAmendment() throws Exception {
        OperatorSubtaskState preState;
        OperatorSubtaskState combinerState;
        List<StatsRow> rows = new java.util.ArrayList<>();
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0);
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            p.open();
            c.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + MINUTE, StatsOutcome.UNIQUE)));
            p.processWatermark(new Watermark(T0 + 30 * MINUTE));
            p.processWatermark(new Watermark(Long.MAX_VALUE));
            forward(p, c);
            rows.addAll(takeRows(c));
            assertThat(rows).as("rows written by the end of event time")
                    .containsExactly(new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + HOUR), counts(1, 0, 0), true));
            preState = p.snapshot(1, 1);
            combinerState = c.snapshot(1, 1);
        }
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0);
                KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> c = StatsHarness.combiner(0)) {
            p.initializeState(preState);
            c.initializeState(combinerState);
            p.open();
            c.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + 2 * MINUTE, StatsOutcome.DUPLICATE)));
            p.processWatermark(new Watermark(T0 + 40 * MINUTE));
            p.processWatermark(new Watermark(T0 + 3 * HOUR));
            forward(p, c);
            rows.addAll(takeRows(c));
        }

        assertThat(rows).containsExactly(
                new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + HOUR), counts(1, 0, 0), true),
                new StatsRow(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), counts(0, 1, 0), false));
    }

    /** The end of event time is not the pre-aggregator's watermark: resumed, a record of a later hour still gets that hour's complete row. */
    @Test
    void theEndOfEventTimeIsNotKeptAsThePreAggregatorsWatermark() throws Exception {
        OperatorSubtaskState preState;
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0)) {
            p.open();
            p.processWatermark(new Watermark(T0 + 30 * MINUTE));
            p.processWatermark(new Watermark(Long.MAX_VALUE));
            preState = p.snapshot(1, 1);
        }
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> p = StatsHarness.outcomes(0)) {
            p.initializeState(preState);
            p.open();
            p.processElement(new StreamRecord<>(outcome(0, T0 + HOUR + MINUTE, StatsOutcome.UNIQUE)));
            p.processWatermark(new Watermark(T0 + 2 * HOUR));

            assertThat(StatsHarness.takePartials(p)).containsExactly(
                    new StatsPartial(new StatsKey(TOPIC, 0, T0 + HOUR, T0 + 2 * HOUR), counts(1, 0, 0)));
        }
    }
}
