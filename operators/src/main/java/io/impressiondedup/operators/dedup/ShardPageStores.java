package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pages of a subtask's shards in keyed state, both formats, each through its write-back cache when it has one: the
 * dedup operator's one view of its pages.
 *
 * <p><b>State layout</b> ({@link DedupStateLayout} names it). Per shard, beside the bucket directory: a {@code
 * MapState<Long, PageGroup>} with every page of every Bloom filter, the pages at one page index of all filters of one
 * geometry together ({@code PageAddress}), and a {@code MapState<Long, FingerprintPage>} with the sections of every
 * fingerprint bucket. A record checked against three buckets reads one entry and writes at most one (one more per
 * growth layer); pages are created on first write; nothing ever serializes a whole filter.
 *
 * <p><b>Page cache.</b> On RocksDB the Bloom probe's read of a page group and a unique record's write of it are most of
 * the operator's time, so pages are cached on the heap ({@link PageCache}, {@link DedupSettings#pageCacheBudget()}):
 * bounded, written back on eviction, before a checkpoint's barrier and at the end of input; a bucket's expiry first
 * writes back and forgets its shard's pages. The budget goes to the format new buckets are created in; the other
 * format's pages, live only while a change of {@code --state-format} works through the retention, are read and written
 * uncached. The state layout is the same with or without the cache.
 */
final class ShardPageStores {

    private static final Logger LOG = LoggerFactory.getLogger(ShardPageStores.class);

    private final MapStatePageGroups pages;
    private final MapStateFingerprintPages fingerprintPages;
    /** The write-back cache of page groups, or {@code null}. */
    private final PageCache<PageGroup> pageCache;
    /** The write-back cache of fingerprint pages, or {@code null}. */
    private final PageCache<FingerprintPage> fingerprintPageCache;
    private final String description;

    /**
     * @param cacheBytes the page cache's budget, resolved ({@link PageCacheBudget#resolve}); 0: no cache
     * @param selectShardKey makes a shard's key the current key, for write-backs of another shard's pages
     * @param copies whether the backend hands out its own objects, which a cached page must then not be
     *     ({@code KeyedStateBackend#isSafeToReuseKVState})
     */
    ShardPageStores(MapState<Long, PageGroup> pageState, MapState<Long, FingerprintPage> fingerprintPageState, DedupPlan plan,
            long cacheBytes, IntConsumer selectShardKey, boolean copies, DedupMetrics metrics) {
        boolean fingerprints = plan.stateFormat() == StateFormat.FINGERPRINTS;
        int cachedPages = fingerprints ? PageCache.fingerprintPagesFor(cacheBytes, plan) : PageCache.groupsFor(cacheBytes, plan);
        pageCache = cachedPages == 0 || fingerprints ? null : new PageCache<>(pageState, "Bloom page group", cacheBytes,
                PageGroup::heapBytes, cachedPages, selectShardKey, copies ? PageGroup::copy : null, metrics.pageCacheHits,
                metrics.pageCacheMisses, metrics.pageCacheDirtyEvictions);
        fingerprintPageCache = cachedPages == 0 || !fingerprints ? null : new PageCache<>(fingerprintPageState, "fingerprint page",
                cacheBytes, FingerprintPage::heapBytes, cachedPages, selectShardKey, copies ? FingerprintPage::copy : null,
                metrics.pageCacheHits, metrics.pageCacheMisses, metrics.pageCacheDirtyEvictions);
        pages = new MapStatePageGroups(pageState, pageCache);
        fingerprintPages = new MapStateFingerprintPages(fingerprintPageState, fingerprintPageCache);
        description = cachedPages == 0 ? "off" : cachedPages + (fingerprints ? " fingerprint pages (" : " Bloom page groups (")
                + cacheBytes + " bytes, at " + (fingerprints ? PageCache.bytesPerFingerprintPage(plan) : PageCache.bytesPerGroup(plan))
                + " each)";
    }

    /**
     * The stores of a dedup subtask, with a cache of {@code budget} resolved against the TaskManager's configuration
     * {@code taskManager} ({@link PageCacheBudget#resolve}); logs which format new buckets take and the cache.
     */
    static ShardPageStores open(MapState<Long, PageGroup> pageState, MapState<Long, FingerprintPage> fingerprintPageState, DedupPlan plan,
            PageCacheBudget budget, Configuration taskManager, IntConsumer selectShardKey, boolean copies, DedupMetrics metrics) {
        long cacheBytes = budget.resolve(taskManager, Runtime.getRuntime().maxMemory());
        ShardPageStores stores = new ShardPageStores(pageState, fingerprintPageState, plan, cacheBytes, selectShardKey, copies, metrics);
        LOG.info("New buckets are stored as {} (--state-format); page cache: {}{}", plan.stateFormat().optionValue(),
                stores.description, budget.isShareOfTaskHeap() ? ", " + budget.describe() : "");
        return stores;
    }

    MapStatePageGroups pages() {
        return pages;
    }

    MapStateFingerprintPages fingerprintPages() {
        return fingerprintPages;
    }

    /** The current record is of {@code shard}. */
    void beginRecord(int shard) {
        pages.beginRecord(shard);
        fingerprintPages.beginRecord(shard);
    }

    /** Removes the pages of {@code dropped}, bucket {@code bucket} of {@code shard} (its key is current). */
    void removeBucket(int shard, long bucket, BucketFilter dropped) throws Exception {
        if (dropped instanceof ScalableBloomFilter) {
            pages.removeBucket(shard, bucket);
        } else if (dropped != null) {
            fingerprintPages.removeBucket(shard, bucket);
        }
    }

    /** Writes every dirty cached page back to keyed state; returns how many were written. */
    int flush() throws Exception {
        int flushed = 0;
        if (fingerprintPageCache != null) {
            flushed += fingerprintPageCache.flush();
        }
        if (pageCache != null) {
            flushed += pageCache.flush();
        }
        return flushed;
    }

    /** The heap the caches hold, bytes. */
    long heldBytes() {
        return (pageCache != null ? pageCache.heldBytes() : 0) + (fingerprintPageCache != null ? fingerprintPageCache.heldBytes() : 0);
    }
}
