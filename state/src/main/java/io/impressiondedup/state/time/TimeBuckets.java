package io.impressiondedup.state.time;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * Event-time buckets: which bucket an impression belongs to, when a bucket expires, and which
 * records come too late to be deduplicated safely. The one place that maps a record to its bucket.
 *
 * <p><b>Buckets.</b> Bucket {@code b} covers event times {@code [startOf(b), endOf(b))}. Buckets are
 * aligned to midnight in {@link #zone()} (UTC by default): with the default size of one day, bucket
 * ids are days since 1970-01-01 in that zone. A size must divide a day (1h, 6h, ...) or be a whole
 * number of days, so that boundaries fall on midnights; in a zone with daylight saving time only whole
 * days are allowed, and such days last 23 or 25 hours.
 *
 * <p><b>Retention and expiry.</b> A bucket is kept until the watermark reaches {@code endOf(b) +
 * retention} ({@link #expiryOf}): every element is remembered for at least the retention after its
 * own event time, and at most one bucket longer. Expiry is driven by event time only, so replaying a
 * week of data expires buckets exactly as the live run did, unlike processing-time TTL.
 *
 * <p><b>Which buckets a record is checked against.</b> Two copies whose event times are at most the
 * retention apart must meet, whichever arrives first. So a record at t is checked against every live
 * bucket in {@code [bucketOf(t - retention), bucketOf(t + retention)]}: at most {@link
 * #maxBucketsChecked()} buckets (5 with the defaults), which is why each bucket's filter gets that
 * share of the end-to-end FPP.
 *
 * <p><b>Lateness.</b> A record is late when the oldest bucket its earlier copies could be in has
 * already expired at the current watermark: {@code watermark >= expiryOf(bucketOf(t - retention))}.
 * Processing it could pass a duplicate as unique (its copy's filter is gone), so it is set aside with
 * reason "late" instead. When the retention is a whole number of buckets this is simply "the
 * watermark has passed the end of the record's own bucket": a record at or ahead of the watermark is
 * never late, and a record behind it stays in time until its bucket closes (up to a day with day
 * buckets, only the out-of-orderness bound around midnight). The weaker rule "late once its own
 * bucket has expired" would accept such records while their copies' buckets are already dropped.
 *
 * <p>Instances cache the last bucket's bounds for zones with daylight saving time; use one per
 * thread.
 */
public final class TimeBuckets implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final Duration DEFAULT_BUCKET_SIZE = Duration.ofDays(1);
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(2);

    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();
    /** Longest daylight-saving shift in use (Lord Howe: 30 min; historical double summer time: 2 h). */
    private static final long MAX_DST_SHIFT_MILLIS = Duration.ofHours(2).toMillis();

    private final long bucketMillis;
    private final long retentionMillis;
    private final ZoneId zone;
    /** Set for fixed-offset zones: then every bucket is exactly {@link #bucketMillis} long. */
    private final Long fixedOffsetMillis;

    private transient long cachedBucket;
    private transient long cachedStart = Long.MAX_VALUE;
    private transient long cachedEnd = Long.MIN_VALUE;

    public TimeBuckets(Duration bucketSize, Duration retention, ZoneId zone) {
        Objects.requireNonNull(bucketSize, "bucketSize");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(zone, "zone");
        this.bucketMillis = bucketSize.toMillis();
        this.retentionMillis = retention.toMillis();
        this.zone = zone;
        checkArgument(
                bucketMillis >= Duration.ofMinutes(1).toMillis(),
                "bucket size must be at least 1 minute, but was %s",
                bucketSize);
        checkArgument(
                DAY_MILLIS % bucketMillis == 0 || bucketMillis % DAY_MILLIS == 0,
                "bucket size must divide a day (e.g. 1h, 6h) or be whole days, so buckets align to midnight, but was %s",
                bucketSize);
        checkArgument(retentionMillis > 0, "retention must be positive, but was %s", retention);
        ZoneOffset fixed = zone.getRules().isFixedOffset() ? zone.getRules().getOffset(Instant.EPOCH) : null;
        this.fixedOffsetMillis = fixed == null ? null : fixed.getTotalSeconds() * 1000L;
        checkArgument(
                fixed != null || bucketMillis % DAY_MILLIS == 0,
                "zone %s has daylight saving time, so the bucket size must be whole days, but was %s",
                zone,
                bucketSize);
    }

    public static TimeBuckets daily(Duration retention) {
        return new TimeBuckets(DEFAULT_BUCKET_SIZE, retention, ZoneOffset.UTC);
    }

    public static TimeBuckets defaults() {
        return new TimeBuckets(DEFAULT_BUCKET_SIZE, DEFAULT_RETENTION, ZoneOffset.UTC);
    }

    public Duration bucketSize() {
        return Duration.ofMillis(bucketMillis);
    }

    public Duration retention() {
        return Duration.ofMillis(retentionMillis);
    }

    public ZoneId zone() {
        return zone;
    }

    /** The bucket holding event time {@code eventTimeMillis}. */
    public long bucketOf(long eventTimeMillis) {
        if (fixedOffsetMillis != null) {
            return Math.floorDiv(saturatedAdd(eventTimeMillis, fixedOffsetMillis), bucketMillis);
        }
        if (eventTimeMillis >= cachedStart && eventTimeMillis < cachedEnd) {
            return cachedBucket;
        }
        long localMillis = eventTimeMillis + zone.getRules().getOffset(Instant.ofEpochMilli(eventTimeMillis)).getTotalSeconds() * 1000L;
        long bucket = Math.floorDiv(localMillis, bucketMillis);
        // Local time is not monotonic across a shift; settle on the bucket whose [start, end) holds t.
        while (startOf(bucket) > eventTimeMillis) {
            bucket--;
        }
        while (startOf(bucket + 1) <= eventTimeMillis) {
            bucket++;
        }
        cachedBucket = bucket;
        cachedStart = startOf(bucket);
        cachedEnd = startOf(bucket + 1);
        return bucket;
    }

    /** First instant (epoch millis, inclusive) of bucket {@code bucket}. */
    public long startOf(long bucket) {
        if (fixedOffsetMillis != null) {
            return bucket * bucketMillis - fixedOffsetMillis;
        }
        long daysPerBucket = bucketMillis / DAY_MILLIS;
        return LocalDate.ofEpochDay(bucket * daysPerBucket).atStartOfDay(zone).toInstant().toEpochMilli();
    }

    /** End (epoch millis, exclusive) of bucket {@code bucket}. */
    public long endOf(long bucket) {
        return startOf(bucket + 1);
    }

    /** The watermark at which bucket {@code bucket} expires and its state is cleared. */
    public long expiryOf(long bucket) {
        return endOf(bucket) + retentionMillis;
    }

    public boolean isLive(long bucket, long watermark) {
        return watermark < expiryOf(bucket);
    }

    /** Oldest bucket that can hold an earlier copy of a record at {@code eventTimeMillis}. */
    public long firstBucketToCheck(long eventTimeMillis) {
        return bucketOf(saturatedSubtract(eventTimeMillis, retentionMillis));
    }

    /** Newest bucket that can hold a copy, stamped later, that arrived earlier. */
    public long lastBucketToCheck(long eventTimeMillis) {
        return bucketOf(saturatedAdd(eventTimeMillis, retentionMillis));
    }

    /** Whether a record at {@code eventTimeMillis} arrives too late to be deduplicated at {@code watermark}. */
    public boolean isLate(long eventTimeMillis, long watermark) {
        return watermark >= expiryOf(firstBucketToCheck(eventTimeMillis));
    }

    /**
     * The most buckets one record is checked against: the bucket ids {@code [t - R, t + R]} can span,
     * {@code 2 ceil(R / B) + 1}; with daylight saving time days may be 2 hours shorter, so B shrinks.
     */
    public int maxBucketsChecked() {
        long shortestBucket = fixedOffsetMillis != null ? bucketMillis : bucketMillis - MAX_DST_SHIFT_MILLIS;
        long perSide = (retentionMillis + shortestBucket - 1) / shortestBucket;
        return (int) (2 * perSide + 1);
    }

    private static long saturatedSubtract(long a, long b) {
        long r = a - b;
        return ((a ^ b) & (a ^ r)) < 0 ? Long.MIN_VALUE : r;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof TimeBuckets)) {
            return false;
        }
        TimeBuckets that = (TimeBuckets) o;
        return bucketMillis == that.bucketMillis && retentionMillis == that.retentionMillis && zone.equals(that.zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bucketMillis, retentionMillis, zone);
    }

    @Override
    public String toString() {
        return "TimeBuckets{size=" + bucketSize() + ", retention=" + retention() + ", zone=" + zone + '}';
    }
}
