package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.state.time.TimeBuckets;
import java.io.Serializable;

/**
 * Which impressions of a history a job would still hold at a watermark ({@code --as-of}): those whose
 * bucket is live at it ({@link TimeBuckets#isLive}: bucket end + retention + allowed lateness is after it).
 * Buckets are whole, so the limit is a bucket start: an impression at {@link #oldestKeptTime()} is kept,
 * one a millisecond before it is not.
 */
final class HistoryHorizon implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TimeBuckets buckets;
    private final long asOf;

    HistoryHorizon(TimeBuckets buckets, long asOf) {
        this.buckets = buckets.copy(); // its bucket cache is per instance
        this.asOf = asOf;
    }

    /** Whether the bucket of an impression at {@code eventTime} would already have been dropped at the as-of watermark. */
    boolean expired(long eventTime) {
        return !buckets.isLive(buckets.bucketOf(eventTime), asOf);
    }

    /** The first instant (epoch millis) whose impressions are kept. */
    long oldestKeptTime() {
        return buckets.startOf(buckets.oldestLiveBucket(asOf));
    }

    long asOf() {
        return asOf;
    }
}
