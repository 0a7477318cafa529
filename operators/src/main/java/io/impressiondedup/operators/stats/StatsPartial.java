package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.ExplicitTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * Counts of one {@link StatsKey} as one pre-aggregator subtask has them: what a {@link StatsPreAggregator}
 * keeps in its operator state and sends to the {@link StatsCombiner}, and what the combiner writes as a row.
 */
public record StatsPartial(StatsKey key, StatsCounts counts) {

    public static final TypeInformation<StatsPartial> TYPE_INFO =
            new ExplicitTypeInfo<>(StatsPartial.class, StatsSerializers.StatsPartialSerializer.INSTANCE);
}
