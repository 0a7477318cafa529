package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.stats.DeadLetterStatsPartials;
import io.impressiondedup.operators.stats.RecordOutcome;
import io.impressiondedup.operators.stats.StatsClassifier;
import io.impressiondedup.operators.stats.StatsCombiner;
import io.impressiondedup.operators.stats.StatsKey;
import io.impressiondedup.operators.stats.StatsPartial;
import io.impressiondedup.operators.stats.StatsPreAggregator;
import io.impressiondedup.operators.stats.StatsRow;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The reconciliation stats branch, built only with {@code --stats-topic} (docs/RECONCILIATION.md; the rule
 * is {@link io.impressiondedup.operators.stats.HourlyStats}'s):
 *
 * <pre>
 *   dedup --outcomes (side output, forward)--> pre-aggregate outcomes  --\
 *                                                                        union, keyBy (topic, partition, hour) --> combine --> stats sink
 *   route --dead letters (side output, forward)--> one partial per dead letter ----/
 * </pre>
 *
 * The outcomes' pre-aggregator runs chained behind the dedup operator, so no impression is shuffled for the
 * stats; only the partial counts of closed rows (a few per partition and hour) are. The router's dead letters,
 * rare, are sent one partial each, and the combiner picks their row at the job's watermark ({@link
 * DeadLetterStatsPartials} says why).
 */
final class ReconciliationStats {

    private ReconciliationStats() {}

    /** The rows of the stats topic, from the dedup stage's outcomes and the router's dead letters. */
    static DataStream<StatsRow> rows(DataStream<RecordOutcome> outcomes, DataStream<DeadLetter> routerDeadLetters, DedupJobConfig config) {
        long delay = config.statsDelay().toMillis();
        DataStream<StatsPartial> outcomePartials = outcomes
                .transform(StatsPreAggregator.OUTCOMES_NAME, StatsPartial.TYPE_INFO,
                        new StatsPreAggregator<>(StatsClassifier.outcomes(), delay))
                .uid(StatsPreAggregator.OUTCOMES_UID)
                .name(StatsPreAggregator.OUTCOMES_NAME);
        DataStream<StatsPartial> deadLetterPartials = routerDeadLetters
                .transform(DeadLetterStatsPartials.NAME, StatsPartial.TYPE_INFO,
                        new DeadLetterStatsPartials(config.parserSettings().maxFutureSkewMillis()))
                .uid(DeadLetterStatsPartials.UID)
                .name(DeadLetterStatsPartials.NAME);
        return outcomePartials.union(deadLetterPartials)
                .keyBy(ReconciliationStats::hourKey, StatsKey.TYPE_INFO)
                .transform(StatsCombiner.NAME, StatsRow.TYPE_INFO, new StatsCombiner(delay))
                .uid(StatsCombiner.UID)
                .name(StatsCombiner.NAME);
    }

    private static StatsKey hourKey(StatsPartial partial) {
        return partial.key().hourKey();
    }
}
