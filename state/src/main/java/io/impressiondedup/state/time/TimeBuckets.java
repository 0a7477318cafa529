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
 * The time semantics of deduplication, written once: which bucket a record belongs to, which buckets
 * it is checked against, when a record is late, and when a bucket's state is dropped. Every other
 * class asks this one; the exact reference of the tests restates these rules independently.
 *
 * <p>Notation: {@code t} a record's event time, {@code W} the lateness watermark (Flink's event-time
 * watermark, never lower than the one reached before the last restore), {@code R} the retention,
 * {@code L} the allowed lateness, all in epoch milliseconds; all sums saturate instead of wrapping.
 *
 * <p><b>1. Buckets.</b> Bucket {@code b} covers event times {@code [startOf(b), endOf(b))}, aligned
 * to midnight in {@link #zone()} (UTC by default): with the default size of one day, bucket ids are
 * days since 1970-01-01 in that zone. A size must divide a day (1h, 6h, ...) or be whole days; in a
 * zone with daylight saving time only whole days are allowed, and such days last 23 or 25 hours.
 * Durations (retention, allowed lateness) are exact milliseconds, never calendar days, so a short day
 * changes which bucket holds an instant but never how long anything is kept or tolerated.
 *
 * <p><b>2. Duplicates.</b> Two records of one identity whose event times are at most {@code R} apart
 * are copies, whichever arrives first: a record is checked against every live bucket in
 * {@code [bucketOf(t - R), bucketOf(t + R)]} ({@link #firstBucketToCheck}, {@link
 * #lastBucketToCheck}), at most {@link #maxBucketsChecked()} buckets (5 with the defaults), which is
 * why each bucket's filter gets that share of the end-to-end FPP. Because buckets are whole days,
 * copies up to {@code R} plus one bucket apart may also meet; copies further apart never do.
 *
 * <p><b>3. Lateness.</b> A record is in time when it is at most the allowed lateness behind the
 * watermark, {@code t >= W - L}, and late when {@code t < W - L} ({@link #isLate}): exactly at the
 * limit is in time, one millisecond past it is late. Before the first watermark nothing is late.
 * Lateness depends on neither bucket boundaries nor retention: a record 20 hours behind is in time with
 * the default {@code L} of one day whatever the hour of day.
 *
 * <p><b>4. Expiry.</b> Bucket {@code b} is dropped when {@code W >= endOf(b) + R + L} ({@link
 * #expiryOf}). Derivation: an in-time record has {@code t >= W - L}, so its oldest possible copy is at
 * {@code t - R >= W - L - R}; bucket {@code b} can hold such a copy while its last instant {@code
 * endOf(b) - 1 >= W - L - R}, that is while {@code W < endOf(b) + R + L}. Hence every bucket an
 * in-time record must be checked against is still live (no false negatives within the allowed
 * lateness), and no bucket is kept longer than that needs. Each day of {@code L} keeps one more
 * daily filter. Expiry follows event time only, so a replay expires buckets as the live run did.
 *
 * <p><b>5. Late records are checked first.</b> A late record is still looked up in the live buckets
 * of its range; a hit is a (late) duplicate and is dropped like any duplicate. Only a miss is late:
 * its copies may have been in buckets already dropped, so passing it as new could double count.
 *
 * <p><b>6. Late records that are emitted anyway</b> (late policy {@code emit}) are remembered where
 * later copies will look: in {@link #lateInsertBucket} = {@code max(bucketOf(t), oldestLiveBucket(W))}
 * if that lies within the record's own range {@code <= bucketOf(t + R)}, else nowhere (then no live
 * bucket can ever be checked by a copy with the same timestamp, and such copies are late misses too).
 *
 * <p><b>7. Late before a restore's horizon.</b> State records the time options it was written under ({@link
 * #description()}) and {@code E}, the event time before which records are late whatever the watermark ({@link
 * #lateBefore}): {@code startOf(oldestLiveBucket(W)) + R} under the options in force, never lower than the {@code E}
 * it was restored with. A record is late when {@code t < W - L} or {@code t < E} ({@link #isLate(long, long, long)}).
 * Under unchanged options the second clause adds nothing ({@code startOf(oldestLiveBucket(W)) <= W - R - L}, so {@code
 * E <= W - L}). After a restore under other options it keeps what the old ones promised: every bucket from {@code
 * startOf(oldestLiveBucket(W))} on is held, so a record at {@code t >= E} finds every copy up to the old {@code R}
 * apart. A longer allowed lateness therefore lets nothing pass that the old options had set aside (a record the old
 * lateness called late, whose copies may be in dropped buckets, stays late until the watermark has moved past), and
 * a longer retention catches copies up to the new {@code R} apart wherever their bucket is still held; copies in
 * buckets the old retention already dropped are beyond the old {@code R}, which is why a longer retention on restore
 * must be allowed explicitly. Bucket size and zone cannot change on a restore: they define what a bucket id means.
 */
public final class TimeBuckets implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final Duration DEFAULT_BUCKET_SIZE = Duration.ofDays(1);
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(2);
    public static final Duration DEFAULT_ALLOWED_LATENESS = Duration.ofDays(1);
    /** Returned by {@link #lateInsertBucket} when no live bucket can be checked by a later copy. */
    public static final long NO_BUCKET = Long.MIN_VALUE;

    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();
    /** Longest daylight-saving shift in use (Lord Howe: 30 min; historical double summer time: 2 h). */
    private static final long MAX_DST_SHIFT_MILLIS = Duration.ofHours(2).toMillis();

    private final long bucketMillis;
    private final long retentionMillis;
    private final long allowedLatenessMillis;
    private final ZoneId zone;
    /** Set for fixed-offset zones: then every bucket is exactly {@link #bucketMillis} long. */
    private final Long fixedOffsetMillis;

    private transient long cachedBucket;
    private transient long cachedStart = Long.MAX_VALUE;
    private transient long cachedEnd = Long.MIN_VALUE;

    public TimeBuckets(Duration bucketSize, Duration retention, Duration allowedLateness, ZoneId zone) {
        Objects.requireNonNull(bucketSize, "bucketSize");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(allowedLateness, "allowedLateness");
        Objects.requireNonNull(zone, "zone");
        this.bucketMillis = bucketSize.toMillis();
        this.retentionMillis = retention.toMillis();
        this.allowedLatenessMillis = allowedLateness.toMillis();
        this.zone = zone;
        checkArgument(
                isBucketSize(bucketSize),
                "bucket size must be at least 1 minute and divide a day (e.g. 1h, 6h) or be whole days, so buckets align to"
                        + " midnight, but was %s",
                bucketSize);
        checkArgument(retentionMillis > 0, "retention must be positive, but was %s", retention);
        checkArgument(!allowedLateness.isNegative(), "allowed lateness must not be negative, but was %s", allowedLateness);
        ZoneOffset fixed = zone.getRules().isFixedOffset() ? zone.getRules().getOffset(Instant.EPOCH) : null;
        this.fixedOffsetMillis = fixed == null ? null : fixed.getTotalSeconds() * 1000L;
        checkArgument(
                fixed != null || bucketMillis % DAY_MILLIS == 0,
                "zone %s has daylight saving time, so the bucket size must be whole days, but was %s",
                zone,
                bucketSize);
    }

    /**
     * The one rule for a bucket size, which every option and setting that names one checks: at least a minute (a bucket
     * is a unit of state and of timers), and dividing a day or whole days, so that buckets align to midnight.
     */
    public static boolean isBucketSize(Duration size) {
        long millis = size.toMillis();
        return millis >= Duration.ofMinutes(1).toMillis() && (DAY_MILLIS % millis == 0 || millis % DAY_MILLIS == 0);
    }

    public static TimeBuckets daily(Duration retention) {
        return new TimeBuckets(DEFAULT_BUCKET_SIZE, retention, DEFAULT_ALLOWED_LATENESS, ZoneOffset.UTC);
    }

    public static TimeBuckets defaults() {
        return new TimeBuckets(DEFAULT_BUCKET_SIZE, DEFAULT_RETENTION, DEFAULT_ALLOWED_LATENESS, ZoneOffset.UTC);
    }

    public Duration bucketSize() {
        return Duration.ofMillis(bucketMillis);
    }

    public Duration retention() {
        return Duration.ofMillis(retentionMillis);
    }

    public Duration allowedLateness() {
        return Duration.ofMillis(allowedLatenessMillis);
    }

    /** An equal instance with a cache of its own, for another thread. */
    public TimeBuckets copy() {
        return new TimeBuckets(bucketSize(), retention(), allowedLateness(), zone);
    }

    /** The same buckets and retention with another allowed lateness. */
    public TimeBuckets withAllowedLateness(Duration allowedLateness) {
        return new TimeBuckets(bucketSize(), retention(), allowedLateness, zone);
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
            long hi = Math.multiplyHigh(bucket, bucketMillis);
            long lo = bucket * bucketMillis;
            if (hi != (lo >> 63)) { // beyond the range of epoch millis: saturate, never wrap
                return bucket < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            return saturatedSubtract(lo, fixedOffsetMillis);
        }
        long daysPerBucket = bucketMillis / DAY_MILLIS;
        return LocalDate.ofEpochDay(bucket * daysPerBucket).atStartOfDay(zone).toInstant().toEpochMilli();
    }

    /** End (epoch millis, exclusive) of bucket {@code bucket}. */
    public long endOf(long bucket) {
        return startOf(bucket + 1);
    }

    /** The watermark at which bucket {@code bucket} expires and its state is dropped: {@code endOf(b) + R + L} (rule 4). */
    public long expiryOf(long bucket) {
        return saturatedAdd(saturatedAdd(endOf(bucket), retentionMillis), allowedLatenessMillis);
    }

    /** Whether bucket {@code bucket} is still kept at {@code watermark}. */
    public boolean isLive(long bucket, long watermark) {
        return watermark < expiryOf(bucket);
    }

    /** The oldest bucket still live at {@code watermark}: {@code bucketOf(W - R - L)}. */
    public long oldestLiveBucket(long watermark) {
        return bucketOf(saturatedSubtract(saturatedSubtract(watermark, retentionMillis), allowedLatenessMillis));
    }

    /** Oldest bucket that can hold an earlier copy of a record at {@code eventTimeMillis}. */
    public long firstBucketToCheck(long eventTimeMillis) {
        return bucketOf(saturatedSubtract(eventTimeMillis, retentionMillis));
    }

    /** Newest bucket that can hold a copy, stamped later, that arrived earlier. */
    public long lastBucketToCheck(long eventTimeMillis) {
        return bucketOf(saturatedAdd(eventTimeMillis, retentionMillis));
    }

    /** Whether a record at {@code eventTimeMillis} is more than the allowed lateness behind {@code watermark} (rule 3). */
    public boolean isLate(long eventTimeMillis, long watermark) {
        return eventTimeMillis < saturatedSubtract(watermark, allowedLatenessMillis);
    }

    /** Rules 3 and 7: late when more than the allowed lateness behind {@code watermark}, or before {@code lateBefore}. */
    public boolean isLate(long eventTimeMillis, long watermark, long lateBefore) {
        return isLate(eventTimeMillis, watermark) || eventTimeMillis < lateBefore;
    }

    /**
     * Rule 7: {@code startOf(oldestLiveBucket(W)) + R} under these options at {@code watermark}, never lower than
     * {@code restoredLateBefore} ({@link Long#MIN_VALUE} for none); {@link Long#MIN_VALUE} before any watermark.
     */
    public long lateBefore(long watermark, long restoredLateBefore) {
        long own = watermark == Long.MIN_VALUE ? Long.MIN_VALUE : saturatedAdd(startOf(oldestLiveBucket(watermark)), retentionMillis);
        return Math.max(own, restoredLateBefore);
    }

    /**
     * The time options as state records them, e.g. {@code bucket-size=PT24H;zone=UTC;retention=PT48H;allowed-lateness=PT24H}.
     * This text is in savepoints: never change its form; {@link #fromDescription} reads it.
     */
    public String description() {
        return "bucket-size=" + bucketSize() + ";zone=" + zone.getId() + ";retention=" + retention() + ";allowed-lateness=" + allowedLateness();
    }

    /** The time options of a {@link #description()}. */
    public static TimeBuckets fromDescription(String description) {
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        for (String field : description.split(";")) {
            int eq = field.indexOf('=');
            checkArgument(eq > 0, "not a time-options description: %s", description);
            fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
        checkArgument(fields.keySet().equals(java.util.Set.of("bucket-size", "zone", "retention", "allowed-lateness")),
                "not a time-options description: %s", description);
        return new TimeBuckets(Duration.parse(fields.get("bucket-size")), Duration.parse(fields.get("retention")),
                Duration.parse(fields.get("allowed-lateness")), ZoneId.of(fields.get("zone")));
    }

    /**
     * Where a late record that is emitted anyway is remembered (rule 6), or {@link #NO_BUCKET} when no
     * bucket that a copy with the same timestamp would check is still live.
     */
    public long lateInsertBucket(long eventTimeMillis, long watermark) {
        long bucket = Math.max(bucketOf(eventTimeMillis), oldestLiveBucket(watermark));
        return bucket <= lastBucketToCheck(eventTimeMillis) ? bucket : NO_BUCKET;
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

    /** {@code a - b}, or {@link Long#MIN_VALUE} / {@link Long#MAX_VALUE} where that would wrap. */
    public static long saturatedSubtract(long a, long b) {
        long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where that would wrap. */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
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
        return bucketMillis == that.bucketMillis
                && retentionMillis == that.retentionMillis
                && allowedLatenessMillis == that.allowedLatenessMillis
                && zone.equals(that.zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bucketMillis, retentionMillis, allowedLatenessMillis, zone);
    }

    @Override
    public String toString() {
        return "TimeBuckets{size=" + bucketSize() + ", retention=" + retention() + ", allowedLateness=" + allowedLateness() + ", zone=" + zone + '}';
    }
}
