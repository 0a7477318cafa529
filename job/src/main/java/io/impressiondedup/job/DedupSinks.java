package io.impressiondedup.job;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.stats.StatsRow;
import io.impressiondedup.job.config.DedupJobOptions;
import org.apache.flink.streaming.api.datastream.DataStream;

/** Where the job's three results go: Kafka topics in production. */
public interface DedupSinks {

    /**
     * @param unique the first impression of each (request, ad)
     * @param deadLetters malformed, oversized, far-future and late records
     * @param duplicates dropped duplicates, or {@code null} unless an audit topic is configured
     */
    void attach(DataStream<Impression> unique, DataStream<DeadLetter> deadLetters, DataStream<Impression> duplicates);

    /**
     * Where the reconciliation rows go, with {@code --stats-topic}: its Kafka topic in production. Sinks
     * that take none (most tests) fail naming the option.
     */
    default void attachStats(DataStream<StatsRow> rows) {
        throw new IllegalStateException("--" + DedupJobOptions.STATS_TOPIC.key() + " is set, but these sinks (" + getClass().getName()
                + ") take no stats rows");
    }
}
