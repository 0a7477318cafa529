package io.impressiondedup.operators.stats;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import io.impressiondedup.operators.model.ExplicitTypeInfo;

/**
 * The dedup operator's verdict on one impression, emitted (only when a stats topic is configured) to a
 * chained {@link StatsPreAggregator}: where the record came from, its event time, and the outcome. A
 * few dozen bytes that never cross the network in the job (the pre-aggregator is chained by a forward
 * edge), so the stats cost no per-record shuffle.
 */
public record RecordOutcome(String topic, int partition, long eventTime, StatsOutcome outcome) {

    public static final TypeInformation<RecordOutcome> TYPE_INFO =
            new ExplicitTypeInfo<>(RecordOutcome.class, StatsSerializers.RecordOutcomeSerializer.INSTANCE);
}
