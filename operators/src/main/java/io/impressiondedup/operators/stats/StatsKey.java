package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.ExplicitTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * One reconciliation row's identity: an input topic partition, an event-time hour (its start, epoch
 * millis, UTC hour-aligned), and the watermark at which the row is written ({@link HourlyStats#closeTimeOf}).
 * The combiner is keyed by its {@link #hourKey()}: the rows of one (topic, partition, hour) are one key; its {@code hashCode}
 * is a pure function of the fields (a record of a String, an int and longs), the same in every JVM, as a Flink key's must be: the rows of one (topic, partition, hour) are one key.
 */
public record StatsKey(String topic, int partition, long hourStart, long closeTime) {

    public static final TypeInformation<StatsKey> TYPE_INFO =
            new ExplicitTypeInfo<>(StatsKey.class, StatsSerializers.StatsKeySerializer.INSTANCE);

    /**
     * The close time of a partial whose row is not chosen yet: a router dead letter's, chosen by the {@link
     * StatsCombiner} at its own watermark. Never a row's close time: every row closes after some watermark.
     */
    public static final long UNASSIGNED = Long.MIN_VALUE;

    /** The (topic, partition, hour) the row belongs to, as the combiner's key: this key with close time 0. */
    public StatsKey hourKey() {
        return closeTime == 0 ? this : new StatsKey(topic, partition, hourStart, 0);
    }

    /** This row's key with another close time. */
    public StatsKey closingAt(long otherCloseTime) {
        return new StatsKey(topic, partition, hourStart, otherCloseTime);
    }

    /** Whether this is the hour's complete row (written when the watermark first passes hour end + delay), not an amendment. */
    public boolean isComplete(long statsDelayMillis) {
        return closeTime == HourlyStats.completeCloseTime(hourStart, statsDelayMillis);
    }
}
