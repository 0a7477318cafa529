package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.Impression;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
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

    static Duration allowedLateness(DedupSettings settings) {
        return settings.plan().timeBuckets().allowedLateness();
    }

    void watermark(long timestamp) {
        watermark = Math.max(watermark, timestamp);
        kept.entrySet().removeIf(e -> watermark >= endOf.applyAsLong(e.getKey()) + retention + allowedLateness);
    }

    Verdict offer(Impression impression) {
        long t = impression.eventTime();
        boolean late = watermark != Long.MIN_VALUE && t < watermark - allowedLateness;
        String key = impression.requestId() + "\u0000" + impression.adId();
        long first = bucketOf.applyAsLong(t - retention);
        long last = bucketOf.applyAsLong(t + retention);
        for (Map.Entry<Long, Set<String>> bucket : kept.subMap(first, true, last, true).entrySet()) {
            if (bucket.getValue().contains(key)) {
                return late ? Verdict.LATE_DUPLICATE : Verdict.DUPLICATE;
            }
        }
        if (!late) {
            kept.computeIfAbsent(bucketOf.applyAsLong(t), b -> new HashSet<>()).add(key);
            return Verdict.UNIQUE;
        }
        if (latePolicy == LatePolicy.EMIT) {
            long oldestKept = bucketOf.applyAsLong(watermark - retention - allowedLateness);
            long target = Math.max(bucketOf.applyAsLong(t), oldestKept);
            if (target <= last) {
                kept.computeIfAbsent(target, b -> new HashSet<>()).add(key);
            }
        }
        return Verdict.LATE;
    }
}
