package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.DeadLetter;
import java.io.Serializable;

/**
 * Where a record counts in the reconciliation rows ({@link HourlyStats}): its input partition, the time
 * whose hour it counts in, and what it adds. One per kind of record a {@link StatsPreAggregator} counts.
 */
public interface StatsClassifier<T> extends Serializable {

    String topic(T record);

    int partition(T record);

    /** The timestamp whose UTC hour the record counts in. */
    long statsTime(T record);

    void count(T record, StatsCounts counts);

    /** The dedup operator's outcomes: counted in the hour of the impression's event time. */
    static StatsClassifier<RecordOutcome> outcomes() {
        return new Outcomes();
    }

    /**
     * The router's dead letters (malformed, oversized, future-timestamp), counted by reason in the hour of
     * their Kafka record timestamp: they have no event time to trust.
     */
    static StatsClassifier<DeadLetter> deadLetters() {
        return new DeadLetters();
    }

    /** See {@link #outcomes()}. */
    final class Outcomes implements StatsClassifier<RecordOutcome> {
        private static final long serialVersionUID = 1L;

        @Override
        public String topic(RecordOutcome record) {
            return record.topic();
        }

        @Override
        public int partition(RecordOutcome record) {
            return record.partition();
        }

        @Override
        public long statsTime(RecordOutcome record) {
            return record.eventTime();
        }

        @Override
        public void count(RecordOutcome record, StatsCounts counts) {
            counts.add(record.outcome());
        }
    }

    /** See {@link #deadLetters()}. */
    final class DeadLetters implements StatsClassifier<DeadLetter> {
        private static final long serialVersionUID = 1L;

        @Override
        public String topic(DeadLetter record) {
            return record.raw().topic();
        }

        @Override
        public int partition(DeadLetter record) {
            return record.raw().partition();
        }

        @Override
        public long statsTime(DeadLetter record) {
            return record.raw().timestamp();
        }

        @Override
        public void count(DeadLetter record, StatsCounts counts) {
            counts.addDeadLetter(record.reason());
        }
    }
}
