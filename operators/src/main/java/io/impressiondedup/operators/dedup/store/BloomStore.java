package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomPageStore;
import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.Locale;
import org.apache.flink.api.common.state.MapState;

/**
 * The Bloom format's store: each bucket a {@link ScalableBloomFilter}, its pages in keyed {@code MapState} as {@link
 * PageGroup}s keyed by {@link PageAddress} (geometry slot, page index), presented to a filter as that filter's pages.
 *
 * <p><b>Layout.</b> A group holds the page at one page index of every filter layer of one geometry, so a record's buckets,
 * which usually share a geometry, are checked by reading one state entry, and inserting writes that entry back (one more
 * per growth layer). Nothing ever reads or writes a whole filter. A filter is over plan when its layers are full: it adds a
 * layer while the shard's growth layers stay within the shard state cap ({@link DedupPlan#shardGrowthAllowanceBytes()}),
 * else its newest layer over-fills.
 */
public final class BloomStore extends PagedFormatStore<PageGroup> implements BloomPageStore {

    /** The plan of new buckets, or {@code null} for a store that only looks up ({@code inspect}). */
    private final DedupPlan plan;
    private final long shardGrowthAllowance;
    /** The bucket and filter the following {@link #readPage}/{@link #writePage} are for. */
    private long bucket;
    private ScalableBloomFilter filter;
    /** Where the page the last {@link #readPage} returned begins in its group's array. */
    private int pageOffset;

    BloomStore(MapState<Long, PageGroup> groups, PageCache<PageGroup> cache, DedupPlan plan, PageJournal journal) {
        super(new MapStatePages<>(groups, cache,
                key -> "Bloom page group " + PageAddress.page(key) + " of slot " + PageAddress.slot(key), 8), journal);
        this.plan = plan;
        this.shardGrowthAllowance = plan == null ? 0 : plan.shardGrowthAllowanceBytes();
    }

    /**
     * Pages read from and written to {@code groups} directly, for a caller that probes one filter itself ({@link #select}
     * before {@code mightContain}/{@code insertAbsent} of the filter): the state tools' test builders.
     */
    public static BloomStore uncached(MapState<Long, PageGroup> groups) {
        return new BloomStore(groups, null, null, null);
    }

    @Override
    public StateFormat format() {
        return StateFormat.BLOOM;
    }

    @Override
    public BucketFilter newBucket() {
        return plan.newBucketFilter();
    }

    @Override
    public long shardGrowthAllowance() {
        return shardGrowthAllowance;
    }

    @Override
    public boolean mightContain(long bucket, BucketFilter filter, RecordHashes hashes) {
        ScalableBloomFilter bloom = select(bucket, filter);
        hashes.hashFor(bloom.fingerprintScheme());
        return bloom.mightContain(hashes.h1(), hashes.h2(), this);
    }

    @Override
    public Insertion insertAbsent(long bucket, BucketFilter filter, RecordHashes hashes, GrowthRoom room) {
        ScalableBloomFilter bloom = select(bucket, filter);
        hashes.hashFor(bloom.fingerprintScheme());
        // What the shard's growth layers may still take; only summed when the filter needs a layer.
        Insertion insertion = bloom.insertAbsent(hashes.h1(), hashes.h2(), this, bloom.needsLayer() ? room.bytesLeft() : 0);
        journal(bucket, bloom.layerCount() - 1, hashes.h1(), hashes.h2()); // the insert went into the newest layer
        return insertion;
    }

    @Override
    public void redo(long bucket, BucketFilter filter, int layer, long h1, long h2) {
        ScalableBloomFilter bloom = select(bucket, filter);
        if (layer < bloom.layerCount()) {
            bloom.layer(layer).geometry().put(this, layer, h1, h2);
        }
    }

    /** A Bloom insert is journaled as its probe hashes in every version. */
    @Override
    public void redoFromHashes(long bucket, BucketFilter filter, int layer, long h1, long h2) {
        redo(bucket, filter, layer, h1, h2);
    }

    @Override
    public boolean journalsSmallNumbers() {
        return false;
    }

    /** Names the bucket and filter that the following {@link #readPage}/{@link #writePage} calls are for. */
    public ScalableBloomFilter select(long bucket, BucketFilter filter) {
        this.bucket = bucket;
        this.filter = (ScalableBloomFilter) filter;
        return this.filter;
    }

    /** The group's one array, the page at {@link #pageOffset()} in it ({@link PageGroup}, "Layout"). */
    @Override
    public long[] readPage(int layer, int page) {
        PageGroup group = pages.read(keyOf(layer, page));
        if (group == null) {
            return null;
        }
        int offset = group.offsetOf(bucket, layer);
        if (offset < 0) {
            return null;
        }
        pageOffset = offset;
        return group.array();
    }

    @Override
    public int pageOffset() {
        return pageOffset;
    }

    /**
     * The group's array changed in place is written as it is; a new page's words are copied into the group. Anything else
     * is an array read before the group was replaced (a sub-page added or removed since): copied in as a page, it would
     * overwrite the page with the whole group, so it is refused.
     */
    @Override
    public void writePage(int layer, int page, long[] words) {
        long key = keyOf(layer, page);
        PageGroup group = pages.read(key);
        if (group == null) {
            group = new PageGroup();
        }
        if (words != group.array()) {
            int pageWords = filter.layer(layer).geometry().wordsInPage(page);
            if (words.length != pageWords) {
                throw new IllegalStateException("Bloom page " + page + " of bucket " + bucket + ", layer " + layer + ": " + words.length
                        + " words are neither its group's array as read nor a new page of " + pageWords
                        + " (an array read before the group changed)");
            }
            group.put(bucket, layer, words);
        }
        pages.write(key, group);
    }

    private long keyOf(int layer, int page) {
        return PageAddress.pack(PageAddress.slotOf(filter.layer(layer).geometry()), page);
    }

    @Override
    public void removeBucket(int shard, long bucket) {
        pages.removeBucket(group -> group.removeBucket(bucket), PageGroup::isEmpty, "the Bloom pages of bucket " + bucket);
    }

    @Override
    public String growth(BucketFilter filter) {
        ScalableBloomFilter bloom = (ScalableBloomFilter) filter;
        return String.format(Locale.ROOT, "added a layer for %d more at FPP %s", bloom.layer(bloom.layerCount() - 1).capacity(),
                bloom.layer(bloom.layerCount() - 1).fpp());
    }

    @Override
    public String capped(BucketFilter filter) {
        ScalableBloomFilter bloom = (ScalableBloomFilter) filter;
        long nextLayer = bloom.nextLayerBytes();
        String why = nextLayer == Long.MAX_VALUE
                ? "its filter cannot add another layer (" + bloom.layerCount() + " layers, the most one filter can hold or address)"
                : "a new layer of " + nextLayer + " bytes would take this shard's filters past the shard state cap of "
                        + plan.shardStateCapBytes() + " bytes (--shard-state-cap " + plan.shardStateCap() + " x its planned "
                        + plan.plannedBytesPerShard() + " bytes)";
        return String.format(Locale.ROOT, "holds %d unique impressions, %.1fx its planned capacity of %d, and %s. It keeps its size:"
                        + " its newest layer over-fills, so this shard drops unique impressions at a rate above the configured FPP,"
                        + " rising as it fills (gauge estimated-fpp)",
                bloom.inserted(), bloom.loadFactor(), bloom.initialCapacity(), why);
    }
}
