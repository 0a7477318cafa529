package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.operator.ExactDedupFunction;
import io.impressiondedup.job.DedupStage;
import io.impressiondedup.operators.model.Impression;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * Exact dedup in keyed state: a {@code ValueState} flag per (request id, ad id), with the retention as
 * its TTL ({@link ExactDedupFunction}). In a class of its own, without the Table API that {@link
 * SqlKeepFirstStage} needs, so that the cluster benchmark's jar runs it on a cluster that has no Table
 * API on its class path.
 */
final class ExactKeyedStage {

    private ExactKeyedStage() {}

    static DedupStage of(Duration retention) {
        return (impressions, config) -> new DedupStage.Deduplicated(
                impressions.keyBy(ExactDedupFunction.keySelector(), Types.STRING)
                        .process(new ExactDedupFunction(retention), Impression.TYPE_INFO)
                        .uid("exact-dedup").name("Exact dedup (ValueState with TTL)"),
                null, null);
    }
}
