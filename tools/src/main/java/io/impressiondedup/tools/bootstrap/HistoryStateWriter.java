package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.operators.dedup.store.ShardFilters;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.tools.savepoint.DedupStateWriter;
import org.apache.flink.api.common.functions.OpenContext;

/**
 * Writes the impressions of a history into their shards' filters, as the dedup operator inserts unique
 * impressions, with the operator's own code ({@link ShardFilters}): an impression is first looked up in the
 * buckets that can hold a copy of it within the retention; a copy found is a duplicate of the history and is
 * not inserted again (the retention runs from the first occurrence, as in the job); else it goes into the
 * filter of its event-time bucket, created from the plan on first use, growing or capped as in the job.
 *
 * <p>The impressions come in batches of one shard ({@link ShardBatcher}): the shard's directory is read and written
 * once a batch. Its pages go through a cache of {@value #PAGE_CACHE_BYTES} bytes that holds them across the shard's
 * batches and writes them back when a batch of another shard comes, and at the end of the input. In batch execution the
 * writer's keyed input comes sorted by key, so a shard's batches come one after the other, and a page is read and
 * written once a shard, not once a batch: at 50M history rows a shard's batches were 48, each reading and writing
 * nearly all of the shard's page groups. Were the input not sorted, each change of shard writes the pages: slower,
 * never wrong.
 *
 * <p>Which copy of a duplicated impression is inserted is the first this writer meets; the job takes the first
 * to arrive, an order a history does not keep. Either way a later copy within the retention is found.
 */
final class HistoryStateWriter extends DedupStateWriter<HistoryBatch> {

    private static final long serialVersionUID = 1L;

    /** Heap bytes of the page cache a batch goes through: far more than one shard's pages on plan. */
    static final long PAGE_CACHE_BYTES = 64L << 20;

    private final DedupPlan plan;

    private transient ShardFilters shardFilters;
    private transient FormatStores stores;
    private transient TimeBuckets buckets;
    /** The shard whose pages the cache holds, or -1. */
    private transient int cachedShard;

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
        stores = FormatStores.cachedWithinShard(pages, fingerprintPages, PAGE_CACHE_BYTES, plan);
        buckets = plan.timeBuckets().copy();
        cachedShard = -1;
    }

    /** A batch carries its rows: the progress counts rows written. */
    @Override
    protected long weight(HistoryBatch batch) {
        return batch.size;
    }

    @Override
    public void processElement(HistoryBatch batch, Context context) throws Exception {
        if (cachedShard != batch.shard) {
            writeCachedShard();
            selectShardKey(batch.shard);
            cachedShard = batch.shard;
        }
        BucketFilters shardDirectory = directory.value();
        if (shardDirectory == null) {
            shardDirectory = new BucketFilters();
        }
        boolean inserted = false;
        for (int i = 0; i < batch.size; i++) {
            shardFilters.beginRecord(batch.digestHigh[i], batch.digestLow[i], batch.adIdHash[i], batch.keyedAdIdHash[i]);
            stores.beginRecord(batch.shard);
            // No watermark: nothing in a history is late, every bucket it holds is live.
            if (shardFilters.bucketHolding(shardDirectory, stores, batch.eventTime[i], false, Long.MIN_VALUE)
                    != TimeBuckets.NO_BUCKET) {
                continue; // a copy: counted from the written state (DirectoryInsertCount)
            }
            shardFilters.insert(shardDirectory, stores, buckets.bucketOf(batch.eventTime[i]));
            inserted = true;
        }
        if (inserted) {
            directory.update(shardDirectory);
        }
    }

    @Override
    protected void endOfInput() {
        writeCachedShard();
    }

    /** Writes the changed pages of the shard the cache holds, under its key, and forgets them. */
    private void writeCachedShard() {
        if (cachedShard >= 0) {
            selectShardKey(cachedShard);
            stores.beginRecord(cachedShard);
            stores.endShard();
            cachedShard = -1;
        }
    }
}
