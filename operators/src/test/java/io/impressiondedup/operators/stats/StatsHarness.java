package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

/** Harnesses and inputs for the stats operators' tests. */
final class StatsHarness {

    static final String TOPIC = "impressions";
    static final long MINUTE = 60_000L;
    static final long HOUR = HourlyStats.HOUR_MILLIS;
    /** 2026-11-23T10:00:00Z, an hour start. */
    static final long T0 = Instant.parse("2026-11-23T10:00:00Z").toEpochMilli();
    static final int MAX_PARALLELISM = 128;

    private StatsHarness() {}

    static RecordOutcome outcome(int partition, long eventTime, StatsOutcome outcome) {
        return new RecordOutcome(TOPIC, partition, eventTime, outcome);
    }

    static DeadLetter deadLetter(int partition, long kafkaTimestamp, DeadLetterReason reason) {
        RawKafkaRecord raw = new RawKafkaRecord(TOPIC, partition, 7L, kafkaTimestamp, null, "{".getBytes(StandardCharsets.UTF_8),
                new String[0], new byte[0][]);
        return new DeadLetter(raw, reason, "test");
    }

    static OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> outcomes(long delayMillis) throws Exception {
        return outcomes(delayMillis, 1, 0);
    }

    static OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> outcomes(long delayMillis, int parallelism, int subtask)
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new StatsPreAggregator<>(StatsClassifier.outcomes(), delayMillis), MAX_PARALLELISM, parallelism, subtask);
    }

    static KeyedOneInputStreamOperatorTestHarness<StatsKey, StatsPartial, StatsRow> combiner(long delayMillis) throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(new StatsCombiner(delayMillis), p -> p.key().hourKey(), StatsKey.TYPE_INFO);
    }

    /** The partials a pre-aggregator emitted, in order, and drops them from its output. */
    static List<StatsPartial> takePartials(OneInputStreamOperatorTestHarness<?, StatsPartial> h) {
        List<StatsPartial> partials = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                partials.add((StatsPartial) r.getValue());
            }
        }
        h.getOutput().clear();
        return partials;
    }

    /** The rows a combiner emitted, in order, and drops them from its output. */
    static List<StatsRow> takeRows(OneInputStreamOperatorTestHarness<?, StatsRow> h) {
        List<StatsRow> rows = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r) {
                rows.add((StatsRow) r.getValue());
            }
        }
        h.getOutput().clear();
        return rows;
    }

    /** Feeds what a pre-aggregator emitted (records and watermarks, in order) into a combiner, and clears it. */
    static void forward(OneInputStreamOperatorTestHarness<?, StatsPartial> from, OneInputStreamOperatorTestHarness<StatsPartial, StatsRow> to)
            throws Exception {
        for (Object o : new ArrayList<>(from.getOutput())) {
            if (o instanceof StreamRecord<?> r) {
                to.processElement(new StreamRecord<>((StatsPartial) r.getValue()));
            } else if (o instanceof Watermark w) {
                to.processWatermark(w);
            }
        }
        from.getOutput().clear();
    }

    static StatsCounts counts(long unique, long duplicates, long late) {
        StatsCounts counts = new StatsCounts();
        for (int i = 0; i < unique; i++) {
            counts.add(StatsOutcome.UNIQUE);
        }
        for (int i = 0; i < duplicates; i++) {
            counts.add(StatsOutcome.DUPLICATE);
        }
        for (int i = 0; i < late; i++) {
            counts.add(StatsOutcome.LATE);
        }
        return counts;
    }
}
