package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.operators.dedup.MapStateFingerprintPages;
import io.impressiondedup.operators.dedup.MapStatePageGroups;
import io.impressiondedup.operators.dedup.ShardFilters;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import org.apache.flink.api.common.functions.OpenContext;
import io.impressiondedup.tools.savepoint.DedupStateWriter;

/**
 * Writes the impressions of a history into their shards' filters, as the dedup operator inserts unique
 * impressions, with the operator's own code ({@link ShardFilters}): an impression is first looked up in the
 * buckets that can hold a copy of it within the retention; a copy found is a duplicate of the history and is
 * not inserted again (the retention runs from the first occurrence, as in the job); else it goes into the
 * filter of its event-time bucket, created from the plan on first use, growing or capped as in the job.
 *
 * <p>Which copy of a duplicated impression is inserted is the first this writer meets; the job takes the first
 * to arrive, an order a history does not keep. Either way a later copy within the retention is found.
 */
final class HistoryStateWriter extends DedupStateWriter<HistoryImpression> {

    private static final long serialVersionUID = 1L;

    private final DedupPlan plan;

    private transient ShardFilters shardFilters;
    private transient MapStatePageGroups pageStore;
    private transient MapStateFingerprintPages fingerprintPageStore;
    private transient TimeBuckets buckets;

    /**
     * No lateness watermark is written. The job's watermark is the slowest partition's newest event time less
     * {@code --max-out-of-orderness}, which a history cannot know; one set too high would make the restored job
     * dead-letter records its sources can still deliver in time, which cannot be undone, while without one the
     * job judges lateness by its own watermark from its first records on, as a job started without state does.
     */
    HistoryStateWriter(DedupPlan plan, long fingerprintCheck, String dedupKey) {
        super(plan.shards(), fingerprintCheck, null, dedupKey);
        this.plan = plan;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        shardFilters = new ShardFilters(plan);
        pageStore = MapStatePageGroups.uncached(pages);
        fingerprintPageStore = new MapStateFingerprintPages(fingerprintPages);
        buckets = plan.timeBuckets().copy();
    }

    @Override
    public void processElement(HistoryImpression impression, Context context) throws Exception {
        BucketFilters shardDirectory = directory.value();
        if (shardDirectory == null) {
            shardDirectory = new BucketFilters();
        }
        shardFilters.beginRecord(impression.digestHigh, impression.digestLow, impression.adIdHash, impression.keyedAdIdHash);
        pageStore.beginRecord(impression.shard);
        fingerprintPageStore.beginRecord(impression.shard);
        // No watermark: nothing in a history is late, every bucket it holds is live.
        if (shardFilters.bucketHolding(shardDirectory, pageStore, fingerprintPageStore, impression.eventTime, false, Long.MIN_VALUE) != TimeBuckets.NO_BUCKET) {
            return; // a copy: counted from the written state (DirectoryInsertCount)
        }
        shardFilters.insert(shardDirectory, pageStore, fingerprintPageStore, buckets.bucketOf(impression.eventTime));
        directory.update(shardDirectory);
    }
}
