package io.impressiondedup.tools;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.MapStatePageGroups;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.time.TimeBuckets;

/**
 * The verdict of {@link DedupOperator#processElement} on a record, for a shard's restored state, without
 * running the operator: the same time rules ({@link TimeBuckets}), the same buckets in the same order, the
 * same probe hashes and page lookups. Keep it in step with the operator: {@code InspectIT} compares the
 * two record by record.
 *
 * <ol>
 *   <li>late = {@link TimeBuckets#isLate}(t, W), W the lateness watermark the restored operator starts with;
 *   <li>the filters of the query's shard in {@code [firstBucketToCheck(t), lastBucketToCheck(t)]}, ascending,
 *       a late record skipping buckets no longer live: the first that might contain it makes it a DUPLICATE
 *       found in that bucket;
 *   <li>else LATE if late, NEW otherwise.
 * </ol>
 */
final class QueryDecision implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    private final TimeBuckets buckets;
    private final long latenessWatermark;

    /** @param latenessWatermark the saved lateness watermark, {@link Long#MIN_VALUE} if none was saved */
    QueryDecision(TimeBuckets buckets, long latenessWatermark) {
        this.buckets = buckets;
        this.latenessWatermark = latenessWatermark;
    }

    /**
     * The verdict on {@code query} for its shard's {@code directory} ({@code null}: the shard holds no state),
     * whose pages {@code pages} reads (the shard's key current).
     */
    QueryVerdict decide(Query query, BucketFilters directory, MapStatePageGroups pages) {
        long t = query.eventTime();
        boolean late = buckets.isLate(t, latenessWatermark);
        if (directory != null) {
            long adIdHash = query.adIdHash();
            pages.beginRecord(query.shard());
            long last = buckets.lastBucketToCheck(t);
            for (int i = directory.firstIndexAtOrAfter(buckets.firstBucketToCheck(t)); i < directory.size(); i++) {
                long bucket = directory.bucketAt(i);
                if (bucket > last) {
                    break;
                }
                if (late && !buckets.isLive(bucket, latenessWatermark)) {
                    continue;
                }
                ScalableBloomFilter filter = directory.filterAt(i);
                long h1 = filter.fingerprintScheme().probeHash1(query.digestHigh(), query.digestLow(), adIdHash);
                long h2 = filter.fingerprintScheme().probeHash2(query.digestHigh(), query.digestLow(), adIdHash);
                pages.select(bucket, filter);
                if (filter.mightContain(h1, h2, pages)) {
                    return new QueryVerdict(query, QueryVerdict.DUPLICATE, bucket);
                }
            }
        }
        return new QueryVerdict(query, late ? QueryVerdict.LATE : QueryVerdict.NEW, null);
    }
}
