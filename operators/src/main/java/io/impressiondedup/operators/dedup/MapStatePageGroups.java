package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.BloomPageStore;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.plan.DedupPlan;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The pages of the current shard's filters, held in keyed {@code MapState} as {@link PageGroup}s keyed
 * by {@link PageAddress} (geometry slot, page index), presented to a filter as that filter's pages.
 *
 * <p>A record's buckets usually share one geometry, so checking all of them reads one state entry
 * and inserting writes that same entry back: each group is fetched at most once per record (misses
 * included) and {@link #beginRecord(int)} forgets them. Nothing ever reads or writes a whole filter.
 * {@link #select} names the bucket and filter a following {@code readPage}/{@code writePage} is for.
 *
 * <p>With a {@link PageCache} (on RocksDB by default) groups are read through it and written to it,
 * not to state: the cache writes them back on eviction and before each checkpoint barrier.
 */
public final class MapStatePageGroups implements BloomPageStore {

    private final MapState<Long, PageGroup> groups;
    /** The write-back cache in front of {@link #groups}, or {@code null} to read and write state directly. */
    private final PageCache<PageGroup> cache;
    private int shard;
    private long bucket;
    private ScalableBloomFilter filter;
    private final RecordPageMemo<PageGroup> fetched = new RecordPageMemo<>(8);

    /** Pages read from and written to {@code groups} directly, as the state tools write a savepoint. */
    public static MapStatePageGroups uncached(MapState<Long, PageGroup> groups) {
        return new MapStatePageGroups(groups, null);
    }

    /**
     * Pages cached within one shard's run of records, for a writer that gets them grouped by shard (the bootstrap
     * tool): reads and writes go through a cache of up to {@code budgetBytes}, and {@link #endShard} writes the
     * shard's changed groups to state, its key still current, and forgets them, so that a group a run touches
     * many times is read once and written once.
     */
    public static MapStatePageGroups cachedWithinShard(MapState<Long, PageGroup> groups, long budgetBytes, DedupPlan plan) {
        return new MapStatePageGroups(groups, new PageCache<>(groups, "Bloom page group", budgetBytes, PageGroup::heapBytes,
                PageCache.groupsFor(budgetBytes, plan), shard -> {}, null, new SimpleCounter(), new SimpleCounter(), new SimpleCounter()));
    }

    /** Ends the current shard's run ({@link #cachedWithinShard}): its changed groups to state, its groups forgotten. */
    public void endShard() {
        if (cache != null) {
            cache.forgetShard(shard);
        }
        beginRecord();
    }

    MapStatePageGroups(MapState<Long, PageGroup> groups, PageCache<PageGroup> cache) {
        this.groups = groups;
        this.cache = cache;
    }

    /** Starts a record of {@code shard} (its key current): forgets the groups fetched so far. */
    public void beginRecord(int shard) {
        this.shard = shard;
        beginRecord();
    }

    private void beginRecord() {
        fetched.clear();
    }

    public void select(long bucket, ScalableBloomFilter filter) {
        this.bucket = bucket;
        this.filter = filter;
    }

    @Override
    public long[] readPage(int layer, int page) {
        PageGroup group = fetch(keyOf(layer, page));
        return group == null ? null : group.find(bucket, layer);
    }

    @Override
    public void writePage(int layer, int page, long[] words) {
        long key = keyOf(layer, page);
        PageGroup group = fetch(key);
        if (group == null) {
            group = new PageGroup();
            fetched.remember(key, group);
        }
        group.put(bucket, layer, words);
        if (cache != null) {
            cache.put(shard, key, group);
            return;
        }
        try {
            groups.put(key, group);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write Bloom page " + page + " of layer " + layer + " of bucket " + bucket, e);
        }
    }

    private long keyOf(int layer, int page) {
        return PageAddress.pack(PageAddress.slotOf(filter.layer(layer).geometry()), page);
    }

    private PageGroup fetch(long key) {
        int slot = fetched.find(key);
        if (slot >= 0) {
            return fetched.at(slot);
        }
        if (cache != null) {
            PageGroup group = cache.get(shard, key);
            fetched.remember(key, group);
            return group;
        }
        try {
            PageGroup group = groups.get(key);
            fetched.remember(key, group);
            return group;
        } catch (Exception e) {
            throw new FlinkRuntimeException(
                    "Cannot read Bloom page group " + PageAddress.page(key) + " of slot " + PageAddress.slot(key), e);
        }
    }

    /**
     * Removes every sub-page of {@code bucket} from {@code shard}'s groups (its key current), dropping groups
     * left empty: one pass over the shard's entries, once per bucket expiry. The cache first writes the
     * shard's dirty groups and forgets them all, so it holds no page of the dropped bucket afterwards.
     */
    public void removeBucket(int shard, long bucket) {
        beginRecord(shard);
        if (cache != null) {
            cache.forgetShard(shard);
        }
        PageEntries.removeBucket(groups, group -> group.removeBucket(bucket), PageGroup::isEmpty, "the Bloom pages of bucket " + bucket);
    }
}
