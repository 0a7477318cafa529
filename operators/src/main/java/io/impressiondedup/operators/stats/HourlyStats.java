package io.impressiondedup.operators.stats;

import java.time.Duration;

/**
 * The rule of the reconciliation rows, in one place: which hour a record counts in, and which row (of
 * the stats topic) it is counted in.
 *
 * <p><b>Hour.</b> An impression (unique, duplicate, late) counts in the UTC hour of its event time; a
 * record the router dead-letters (malformed, oversized, future-timestamp) in the hour of its Kafka record
 * timestamp: it has no trustworthy event time. Hours are epoch-aligned: [k h, (k + 1) h); a record at
 * exactly an hour's end belongs to the next hour. Partition: the input topic and partition it was read from.
 *
 * <p><b>Row.</b> Users bill per event-time hour, and impressions arrive up to the allowed lateness (a
 * day) late, so one row written when an hour ends cannot hold them all. Rows are deltas: a record counted
 * while the counting operator's watermark is {@code w} goes to the row of (partition, hour) closing at
 * <pre>  closeTime = w < hourEnd + statsDelay ? hourEnd + statsDelay : first hour boundary > w</pre>
 * (not {@code max(hourEnd + statsDelay, first hour boundary > w)}: with a delay that is no whole number of
 * hours, a record counted between the hour boundary before {@code hourEnd + statsDelay} and that time
 * would skip the complete row it is in time for)
 * and that row is written once, when the watermark reaches its close time. The row with {@code closeTime
 * == hourEnd + statsDelay} is the hour's <i>complete</i> row (everything counted before the watermark
 * passed the hour's end plus the delay); records of the hour counted after it go to <i>amendment</i> rows,
 * at most one per (partition, hour) per hour of watermark progress. Each record is counted in exactly one
 * row, so billing sums the rows of a (topic, partition, hour); the complete row alone is what was known
 * when the hour closed. {@code closeTime > w} always, so a count never goes to a row already written.
 *
 * <p><b>Restore.</b> Flink does not restore watermarks: after a restore {@code w} would start from
 * nothing, and a record of an hour whose complete row was already written (and committed) would open a
 * second complete row. The pre-aggregators keep their watermark in state and use the lowest restored one
 * as a floor for {@code w} ({@link StatsPreAggregator}).
 *
 * <p>All arithmetic saturates: a watermark of {@code Long.MAX_VALUE} (end of a bounded input) closes every row.
 */
public final class HourlyStats {

    public static final long HOUR_MILLIS = Duration.ofHours(1).toMillis();

    private HourlyStats() {}

    /** Start of the UTC hour holding {@code timestamp} (epoch millis): a timestamp at an hour's end is in the next hour. */
    public static long hourStartOf(long timestamp) {
        long t = Math.max(timestamp, Long.MIN_VALUE + HOUR_MILLIS);
        return t - Math.floorMod(t, HOUR_MILLIS);
    }

    /** The close time of an hour's complete row: hour end + the stats delay. */
    public static long completeCloseTime(long hourStart, long statsDelayMillis) {
        return saturatedAdd(saturatedAdd(hourStart, HOUR_MILLIS), statsDelayMillis);
    }

    /** The first hour boundary strictly after {@code watermark}. */
    static long firstBoundaryAfter(long watermark) {
        if (watermark == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        return saturatedAdd(hourStartOf(watermark), HOUR_MILLIS);
    }

    /** The close time of the row a record of the hour starting at {@code hourStart} counts in, counted at {@code watermark}. */
    public static long closeTimeOf(long hourStart, long statsDelayMillis, long watermark) {
        long complete = completeCloseTime(hourStart, statsDelayMillis);
        return watermark < complete ? complete : firstBoundaryAfter(watermark);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
