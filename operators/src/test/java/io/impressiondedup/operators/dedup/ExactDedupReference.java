package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.Impression;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;

/**
 * Exact deduplication with the operator's time semantics, restated independently of {@code
 * TimeBuckets}'s rule methods: one hash set of (request id, ad id) per event-time bucket instead of a
 * Bloom filter, so it never answers falsely. The operator must decide as this does, but for false
 * positives within the configured FPP. Only the calendar mapping of an instant to its bucket and the
 * bucket's end are borrowed (the {@code bucketOf} and {@code endOf} functions given).
 *
 * <p>Rules: a record at {@code t} is late when {@code t < W - L}. It is looked up in every bucket kept
 * from {@code bucketOf(t - R)} to {@code bucketOf(t + R)}; a hit is a duplicate (a late duplicate if
 * late). An in-time miss is unique and goes into {@code bucketOf(t)}; a late miss is late, and under
 * the emit policy goes into {@code max(bucketOf(t), oldest kept)} when that is within its range. A
 * bucket is dropped once {@code W >= end + R + L}.
 */
final class ExactDedupReference {

    enum Verdict { UNIQUE, DUPLICATE, LATE_DUPLICATE, LATE }

    private final LongUnaryOperator bucketOf;
    private final LongUnaryOperator endOf;
    private final long retention;
    private final long allowedLateness;
    private final LatePolicy latePolicy;
    private final TreeMap<Long, Set<String>> kept = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;

    ExactDedupReference(DedupSettings settings) {
        var buckets = settings.plan().timeBuckets();
        this.bucketOf = buckets::bucketOf;
        this.endOf = buckets::endOf;
        this.retention = buckets.retention().toMillis();
        this.allowedLateness = buckets.allowedLateness().toMillis();
        this.latePolicy = settings.latePolicy();
    }

    void watermark(long timestamp) {
        watermark = Math.max(watermark, timestamp);
        kept.entrySet().removeIf(e -> watermark >= endOf.applyAsLong(e.getKey()) + retention + allowedLateness);
    }

    /** What this reference decides for {@code impression} now; changes nothing. */
    Verdict decide(Impression impression) {
        long t = impression.eventTime();
        boolean late = isLate(t);
        String key = key(impression);
        for (Set<String> bucket : kept.subMap(bucketOf.applyAsLong(t - retention), true, bucketOf.applyAsLong(t + retention), true).values()) {
            if (bucket.contains(key)) {
                return late ? Verdict.LATE_DUPLICATE : Verdict.DUPLICATE;
            }
        }
        return late ? Verdict.LATE : Verdict.UNIQUE;
    }

    /**
     * Remembers {@code impression} as the decision {@code actual} requires: unique ones in their own
     * bucket, late ones emitted anyway in the oldest kept bucket of their range. {@code actual} is
     * normally {@link #decide}'s answer; the differential test passes the operator's, so that after
     * one of its false positives both hold the same impressions.
     */
    void apply(Impression impression, Verdict actual) {
        long t = impression.eventTime();
        if (actual == Verdict.UNIQUE) {
            kept.computeIfAbsent(bucketOf.applyAsLong(t), b -> new HashSet<>()).add(key(impression));
        } else if (actual == Verdict.LATE && latePolicy == LatePolicy.EMIT) {
            long oldestKept = bucketOf.applyAsLong(watermark - retention - allowedLateness);
            long target = Math.max(bucketOf.applyAsLong(t), oldestKept);
            if (target <= bucketOf.applyAsLong(t + retention)) {
                kept.computeIfAbsent(target, b -> new HashSet<>()).add(key(impression));
            }
        }
    }

    /** {@link #decide}, then {@link #apply} with that decision. */
    Verdict offer(Impression impression) {
        Verdict verdict = decide(impression);
        apply(impression, verdict);
        return verdict;
    }

    private boolean isLate(long t) {
        return watermark != Long.MIN_VALUE && t < watermark - allowedLateness;
    }

    private static String key(Impression impression) {
        return impression.requestId() + "\u0000" + impression.adId();
    }
}
