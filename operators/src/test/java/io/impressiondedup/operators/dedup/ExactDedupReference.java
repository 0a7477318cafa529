package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Exact deduplication with the operator's time semantics: one hash set of (request id, ad id) per
 * event-time bucket instead of a Bloom filter, so it never answers falsely. The operator must decide
 * as this does, but for false positives within the configured FPP.
 */
final class ExactDedupReference {

    enum Verdict { UNIQUE, DUPLICATE, LATE }

    private final TimeBuckets buckets;
    private final long retention;
    private final TreeMap<Long, Set<String>> live = new TreeMap<>();
    private long watermark = Long.MIN_VALUE;

    ExactDedupReference(TimeBuckets buckets) {
        this.buckets = buckets;
        this.retention = buckets.retention().toMillis();
    }

    void watermark(long timestamp) {
        watermark = Math.max(watermark, timestamp);
        live.headMap(Long.MAX_VALUE).entrySet().removeIf(e -> watermark >= buckets.endOf(e.getKey()) + retention);
    }

    Verdict offer(Impression impression) {
        long t = impression.eventTime();
        if (watermark != Long.MIN_VALUE && watermark >= buckets.endOf(buckets.bucketOf(t - retention)) + retention) {
            return Verdict.LATE;
        }
        String key = impression.requestId() + "\u0000" + impression.adId();
        for (Map.Entry<Long, Set<String>> bucket : live.subMap(buckets.bucketOf(t - retention), true, buckets.bucketOf(t + retention), true).entrySet()) {
            if (bucket.getValue().contains(key)) {
                return Verdict.DUPLICATE;
            }
        }
        live.computeIfAbsent(buckets.bucketOf(t), b -> new HashSet<>()).add(key);
        return Verdict.UNIQUE;
    }
}
