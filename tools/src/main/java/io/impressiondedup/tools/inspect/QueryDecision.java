package io.impressiondedup.tools.inspect;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.operators.dedup.store.ShardFilters;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.time.TimeBuckets;

/**
 * The verdict of {@link DedupOperator#processElement} on a record, for a shard's restored state, without
 * running the operator: the lookup is the operator's own ({@link ShardFilters#bucketHolding}), under the
 * same time rules ({@link TimeBuckets}); only the choice between LATE and NEW on a miss is spelled out
 * here. {@code InspectIT} compares the two record by record.
 *
 * <ol>
 *   <li>late = {@link TimeBuckets#isLate}(t, W, E), W the lateness watermark the restored operator starts with, E the
 *       event time before which its state sets records aside whatever the watermark (rule 7);
 *   <li>the filters of the query's shard in {@code [firstBucketToCheck(t), lastBucketToCheck(t)]}, ascending,
 *       a late record skipping buckets that are not live: the first that might contain it makes it a DUPLICATE
 *       found in that bucket;
 *   <li>else LATE if late, NEW otherwise.
 * </ol>
 */
final class QueryDecision implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    private final TimeBuckets buckets;
    private final long latenessWatermark;
    private final long lateBefore;
    /** The operator's own lookup ({@link ShardFilters#bucketHolding}), made where the decisions are taken. */
    private transient ShardFilters filters;

    /**
     * @param latenessWatermark the saved lateness watermark, {@link Long#MIN_VALUE} if none was saved
     * @param lateBefore the event time before which records are late whatever the watermark ({@link TimeBuckets} rule 7), {@link Long#MIN_VALUE} if unknown
     */
    QueryDecision(TimeBuckets buckets, long latenessWatermark, long lateBefore) {
        this.buckets = buckets;
        this.latenessWatermark = latenessWatermark;
        this.lateBefore = lateBefore;
    }

    /**
     * The verdict on {@code query} for its shard's {@code directory} ({@code null}: the shard holds no state),
     * whose pages {@code stores} read (the shard's key current).
     */
    QueryVerdict decide(Query query, BucketFilters directory, FormatStores stores) {
        long t = query.eventTime();
        boolean late = buckets.isLate(t, latenessWatermark, lateBefore);
        if (directory != null) {
            if (filters == null) {
                filters = ShardFilters.lookupsOnly(buckets);
            }
            stores.beginRecord(query.shard());
            filters.beginRecord(query.digestHigh(), query.digestLow(), query.adIdHash(), query.keyedAdIdHash());
            long bucket = filters.bucketHolding(directory, stores, t, late, latenessWatermark);
            if (bucket != TimeBuckets.NO_BUCKET) {
                return new QueryVerdict(query, QueryVerdict.DUPLICATE, bucket);
            }
        }
        return new QueryVerdict(query, late ? QueryVerdict.LATE : QueryVerdict.NEW, null);
    }
}
