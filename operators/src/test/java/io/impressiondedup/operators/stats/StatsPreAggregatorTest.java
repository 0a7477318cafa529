package io.impressiondedup.operators.stats;

import static io.impressiondedup.operators.stats.StatsHarness.HOUR;
import static io.impressiondedup.operators.stats.StatsHarness.MAX_PARALLELISM;
import static io.impressiondedup.operators.stats.StatsHarness.MINUTE;
import static io.impressiondedup.operators.stats.StatsHarness.T0;
import static io.impressiondedup.operators.stats.StatsHarness.TOPIC;
import static io.impressiondedup.operators.stats.StatsHarness.counts;
import static io.impressiondedup.operators.stats.StatsHarness.deadLetter;
import static io.impressiondedup.operators.stats.StatsHarness.outcome;
import static io.impressiondedup.operators.stats.StatsHarness.takePartials;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The pre-aggregator picks each record's row by the rule of {@link HourlyStats}, and keeps it across restores and rescales. */
class StatsPreAggregatorTest {

    @Test
    void aRecordExactlyAtTheHourEndCountsInTheNextHourAndOneMillisecondBeforeInItsOwn() throws Exception {
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0)) {
            h.open();
            h.processElement(new StreamRecord<>(outcome(3, T0 + HOUR - 1, StatsOutcome.UNIQUE)));
            h.processElement(new StreamRecord<>(outcome(3, T0 + HOUR, StatsOutcome.DUPLICATE)));
            h.processWatermark(new Watermark(Long.MAX_VALUE));

            assertThat(byHour(takePartials(h))).containsOnly(
                    Map.entry(T0, counts(1, 0, 0)),
                    Map.entry(T0 + HOUR, counts(0, 1, 0)));
        }
    }

    @Test
    void aRowIsEmittedBeforeTheWatermarkThatClosesItAndNotBefore() throws Exception {
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0)) {
            h.open();
            h.processElement(new StreamRecord<>(outcome(0, T0 + 5 * MINUTE, StatsOutcome.UNIQUE)));
            h.processWatermark(new Watermark(T0 + HOUR - 1));
            assertThat(h.getOutput()).containsExactly(new Watermark(T0 + HOUR - 1));
            h.getOutput().clear();

            h.processWatermark(new Watermark(T0 + HOUR));

            assertThat(h.getOutput()).hasSize(2);
            assertThat(h.getOutput().peek()).isInstanceOf(StreamRecord.class);
            assertThat(new ArrayList<>(h.getOutput()).get(1)).isEqualTo(new Watermark(T0 + HOUR));
        }
    }

    @Test
    void aRecordOfAnHourAlreadyClosedGoesToTheAmendmentAtTheNextHourBoundary() throws Exception {
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0)) {
            h.open();
            h.processElement(new StreamRecord<>(outcome(0, T0 + 5 * MINUTE, StatsOutcome.UNIQUE)));
            h.processWatermark(new Watermark(T0 + HOUR + 10 * MINUTE)); // closes T0's complete row
            List<StatsPartial> complete = takePartials(h);
            h.processElement(new StreamRecord<>(outcome(0, T0 + 6 * MINUTE, StatsOutcome.LATE)));
            h.processWatermark(new Watermark(T0 + 2 * HOUR - 1));
            assertThat(takePartials(h)).isEmpty();
            h.processWatermark(new Watermark(T0 + 2 * HOUR));

            assertThat(complete).containsExactly(new StatsPartial(new StatsKey(TOPIC, 0, T0, T0 + HOUR), counts(1, 0, 0)));
            assertThat(takePartials(h)).containsExactly(new StatsPartial(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), counts(0, 0, 1)));
        }
    }

    @Test
    void theStatsDelayHoldsTheCompleteRowUntilTheWatermarkPassesHourEndPlusTheDelay() throws Exception {
        long delay = 30 * MINUTE;
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(delay)) {
            h.open();
            h.processElement(new StreamRecord<>(outcome(0, T0 + 5 * MINUTE, StatsOutcome.UNIQUE)));
            h.processWatermark(new Watermark(T0 + HOUR + 10 * MINUTE));
            h.processElement(new StreamRecord<>(outcome(0, T0 + 50 * MINUTE, StatsOutcome.UNIQUE))); // still in time for it
            assertThat(takePartials(h)).isEmpty();
            h.processWatermark(new Watermark(T0 + HOUR + delay - 1));
            assertThat(takePartials(h)).isEmpty();

            h.processWatermark(new Watermark(T0 + HOUR + delay));

            StatsKey key = new StatsKey(TOPIC, 0, T0, T0 + HOUR + delay);
            assertThat(key.isComplete(delay)).isTrue();
            assertThat(takePartials(h)).containsExactly(new StatsPartial(key, counts(2, 0, 0)));
        }
    }

    @Test
    void deadLettersCountInTheHourOfTheirKafkaTimestampByReason() throws Exception {
        try (OneInputStreamOperatorTestHarness<DeadLetter, StatsPartial> h = new OneInputStreamOperatorTestHarness<>(
                new StatsPreAggregator<>(StatsClassifier.deadLetters(), 0))) {
            h.open();
            h.processElement(new StreamRecord<>(deadLetter(1, T0 + 59 * MINUTE, DeadLetterReason.MALFORMED)));
            h.processElement(new StreamRecord<>(deadLetter(1, T0 + 3 * MINUTE, DeadLetterReason.FUTURE_TIMESTAMP)));
            h.processWatermark(new Watermark(Long.MAX_VALUE));

            List<StatsPartial> partials = takePartials(h);
            assertThat(partials).hasSize(1);
            StatsCounts counts = partials.get(0).counts();
            assertThat(partials.get(0).key()).isEqualTo(new StatsKey(TOPIC, 1, T0, T0 + HOUR));
            assertThat(counts.deadLettered(DeadLetterReason.MALFORMED)).isEqualTo(1);
            assertThat(counts.deadLettered(DeadLetterReason.FUTURE_TIMESTAMP)).isEqualTo(1);
            assertThat(counts.input()).isEqualTo(2);
        }
    }

    /**
     * The complete row of T0 was emitted before the snapshot (its watermark passed T0's end): after a
     * restore, where Flink's watermark starts from nothing, a record of T0 must go to an amendment, or T0
     * would get a second complete row. The pending count of the next hour survives the restore.
     */
    @Test
    void aRestoreNeverOpensACompleteRowAlreadyWrittenAndLosesNothingPending() throws Exception {
        OperatorSubtaskState snapshot;
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0)) {
            h.open();
            h.processElement(new StreamRecord<>(outcome(0, T0 + 5 * MINUTE, StatsOutcome.UNIQUE)));
            h.processElement(new StreamRecord<>(outcome(0, T0 + HOUR + 5 * MINUTE, StatsOutcome.UNIQUE)));
            h.processWatermark(new Watermark(T0 + HOUR + 10 * MINUTE));
            assertThat(takePartials(h)).extracting(StatsPartial::key).containsExactly(new StatsKey(TOPIC, 0, T0, T0 + HOUR));
            snapshot = h.snapshot(1, 1);
        }
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(new StreamRecord<>(outcome(0, T0 + 7 * MINUTE, StatsOutcome.DUPLICATE)));
            h.processWatermark(new Watermark(Long.MAX_VALUE));

            assertThat(takePartials(h)).containsExactlyInAnyOrder(
                    new StatsPartial(new StatsKey(TOPIC, 0, T0, T0 + 2 * HOUR), counts(0, 1, 0)),
                    new StatsPartial(new StatsKey(TOPIC, 0, T0 + HOUR, T0 + 2 * HOUR), counts(1, 0, 0)));
        }
    }

    @Test
    void rescalingThePendingRowsFromTwoToOneToThreeSubtasksKeepsEveryCount() throws Exception {
        Map<StatsKey, StatsCounts> expected = new HashMap<>();
        List<OperatorSubtaskState> snapshots = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0, 2, subtask)) {
                h.open();
                for (int i = 0; i < 40; i++) {
                    RecordOutcome o = outcome(subtask * 2 + i % 2, T0 + i * 7 * MINUTE, StatsOutcome.values()[i % 3]);
                    h.processElement(new StreamRecord<>(o));
                    long hour = HourlyStats.hourStartOf(o.eventTime());
                    expected.computeIfAbsent(new StatsKey(TOPIC, o.partition(), hour, hour + HOUR), k -> new StatsCounts()).add(o.outcome());
                }
                h.processWatermark(new Watermark(T0 - 1));
                snapshots.add(h.snapshot(1, 1));
            }
        }
        OperatorSubtaskState onOne;
        try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0, 1, 0)) {
            h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(
                    AbstractStreamOperatorTestHarness.repackageState(snapshots.toArray(new OperatorSubtaskState[0])), MAX_PARALLELISM, 2, 1, 0));
            h.open();
            onOne = h.snapshot(2, 2);
        }
        Map<StatsKey, StatsCounts> emitted = new HashMap<>();
        int subtasksWithRows = 0;
        for (int subtask = 0; subtask < 3; subtask++) {
            try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = StatsHarness.outcomes(0, 3, subtask)) {
                h.initializeState(AbstractStreamOperatorTestHarness.repartitionOperatorState(onOne, MAX_PARALLELISM, 1, 3, subtask));
                h.open();
                h.processWatermark(new Watermark(Long.MAX_VALUE));
                List<StatsPartial> partials = takePartials(h);
                subtasksWithRows += partials.isEmpty() ? 0 : 1;
                partials.forEach(p -> emitted.computeIfAbsent(p.key(), k -> new StatsCounts()).addAll(p.counts()));
            }
        }
        assertThat(subtasksWithRows).isGreaterThan(1); // the list state was really redistributed
        assertThat(emitted).isEqualTo(expected);
    }

    private static Map<Long, StatsCounts> byHour(List<StatsPartial> partials) {
        Map<Long, StatsCounts> byHour = new HashMap<>();
        partials.forEach(p -> byHour.computeIfAbsent(p.key().hourStart(), k -> new StatsCounts()).addAll(p.counts()));
        return byHour;
    }
}
