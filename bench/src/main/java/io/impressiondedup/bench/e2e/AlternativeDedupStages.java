package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.operator.ExactDedupFunction;
import io.impressiondedup.job.DedupStage;
import java.time.Duration;

/**
 * What users would run in place of our dedup operator, as {@link DedupStage}s that slot into the
 * job's own topology: the Kafka source, the parsing and routing and the exactly-once sinks stay the
 * same, so that only the dedup step differs between the variants measured.
 */
final class AlternativeDedupStages {

    private AlternativeDedupStages() {}

    /** No dedup: every impression passes. The ceiling of the pipeline around the dedup step. */
    static DedupStage passThrough() {
        return (impressions, config) -> new DedupStage.Deduplicated(impressions, null, null);
    }

    /**
     * No dedup, but the records cross the same keyBy by shard as this job's: the ceiling for a
     * pipeline of the job's shape (a source-and-parse task feeding a dedup-and-sink task), where
     * the plain pass-through is one chain per subtask.
     */
    static DedupStage keyedPassThrough() {
        return ParsePassThrough.stage();
    }

    /**
     * The DataStream idiom: key by (request id, ad id), a {@code ValueState<Boolean>} per key with a
     * TTL of the retention ({@link ExactDedupFunction}).
     */
    static DedupStage exactKeyedState(Duration retention) {
        return ExactKeyedStage.of(retention);
    }

    /**
     * Flink SQL's deduplication, keep-first on (request id, ad id) with the retention as state TTL
     * ({@link SqlKeepFirstStage}).
     */
    static DedupStage flinkSql(Duration retention) {
        return SqlKeepFirstStage.of(retention);
    }
}
