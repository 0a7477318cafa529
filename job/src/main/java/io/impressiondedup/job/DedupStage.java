package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobConfig;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.stats.RecordOutcome;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The step between parsed impressions and the sinks. The job uses {@link DedupJob#dedupStage}; the
 * end-to-end benchmarks put the alternatives users would run instead (exact keyed state, Flink SQL
 * deduplication, no dedup at all) in its place, with the same source, parsing and sinks around it.
 */
@FunctionalInterface
public interface DedupStage {

    /** Adds the dedup operators after {@code impressions}. */
    Deduplicated attach(DataStream<Impression> impressions, DedupJobConfig config);

    /**
     * What a dedup stage produces.
     *
     * @param unique the impressions that pass
     * @param late records judged too late to deduplicate, for the dead-letter topic, or {@code null}
     * @param duplicates the dropped duplicates, for the audit topic, or {@code null}
     * @param outcomes every record's outcome, for the reconciliation rows ({@code --stats-topic}), or {@code null}
     */
    record Deduplicated(DataStream<Impression> unique, DataStream<DeadLetter> late, DataStream<Impression> duplicates,
            DataStream<RecordOutcome> outcomes) {

        /** A stage without outcomes: it cannot feed a stats topic. */
        public Deduplicated(DataStream<Impression> unique, DataStream<DeadLetter> late, DataStream<Impression> duplicates) {
            this(unique, late, duplicates, null);
        }
    }
}
