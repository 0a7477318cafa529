package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.ExplicitTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * One row of the stats topic: the counts of a (topic, partition, hour) that the watermark closed at
 * {@link StatsKey#closeTime()}, {@code complete} for the hour's first row (watermark past hour end +
 * delay), else an amendment with what arrived later. Billing sums all rows of a (topic, partition, hour).
 */
public record StatsRow(StatsKey key, StatsCounts counts, boolean complete) {

    public static final TypeInformation<StatsRow> TYPE_INFO =
            new ExplicitTypeInfo<>(StatsRow.class, StatsSerializers.StatsRowSerializer.INSTANCE);
}
