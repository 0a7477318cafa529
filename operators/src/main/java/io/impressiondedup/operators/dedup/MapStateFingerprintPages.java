package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.plan.DedupPlan;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The current shard's fingerprint pages ({@link FingerprintPage}), held in keyed {@code MapState} keyed by
 * {@link FingerprintBucket#pageKey} (the store's page count, the page index): the fingerprint format's page store, as
 * {@link MapStatePageGroups} is the Bloom format's.
 *
 * <p>Every bucket of a shard in the fingerprint format maps a record to the same page (its sizing's page count is
 * the plan's), so a lookup over all of them reads one entry and a unique record writes that entry back. A page
 * read in a record is remembered until {@link #beginRecord(int)}, so the lookup and the insert of one record read
 * state once. The page count is part of the key: buckets sized under another plan (another capacity) use other
 * pages, never a page of the wrong count.
 *
 * <p>With a {@link PageCache} (on RocksDB by default, when new buckets are in this format) pages are read through it
 * and written to it, not to state: the cache writes them back on eviction and before each checkpoint barrier.
 * Without one, each record reads (and on RocksDB deserializes) its page of about 1 KB.
 */
public final class MapStateFingerprintPages {

    private final MapState<Long, FingerprintPage> pages;
    /** The write-back cache in front of {@link #pages}, or {@code null} to read and write state directly. */
    private final PageCache<FingerprintPage> cache;
    private int shard;
    private final RecordPageMemo<FingerprintPage> read = new RecordPageMemo<>(4);

    /** Pages read from and written to {@code pages} directly, as the state tools read and write a savepoint. */
    public MapStateFingerprintPages(MapState<Long, FingerprintPage> pages) {
        this(pages, null);
    }

    /** Pages cached within one shard's run of records, as {@link MapStatePageGroups#cachedWithinShard}. */
    public static MapStateFingerprintPages cachedWithinShard(MapState<Long, FingerprintPage> pages, long budgetBytes, DedupPlan plan) {
        return new MapStateFingerprintPages(pages, new PageCache<>(pages, "fingerprint page", budgetBytes, FingerprintPage::heapBytes,
                PageCache.fingerprintPagesFor(budgetBytes, plan), shard -> {}, null, new SimpleCounter(), new SimpleCounter(),
                new SimpleCounter()));
    }

    /** Ends the current shard's run ({@link #cachedWithinShard}): its changed pages to state, its pages forgotten. */
    public void endShard() {
        if (cache != null) {
            cache.forgetShard(shard);
        }
        beginRecord();
    }

    MapStateFingerprintPages(MapState<Long, FingerprintPage> pages, PageCache<FingerprintPage> cache) {
        this.pages = pages;
        this.cache = cache;
    }

    /** Starts a record of {@code shard} (its key current): forgets the pages read so far. */
    public void beginRecord(int shard) {
        this.shard = shard;
        beginRecord();
    }

    private void beginRecord() {
        read.clear();
    }

    /** The page at {@code key}, or {@code null} if it holds nothing yet. */
    public FingerprintPage read(long key) {
        int slot = read.find(key);
        if (slot >= 0) {
            return read.at(slot);
        }
        FingerprintPage page;
        try {
            page = cache != null ? cache.get(shard, key) : pages.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read fingerprint page " + FingerprintBucket.pageIndexOf(key) + " of " + FingerprintBucket.pageCountOf(key), e);
        }
        read.remember(key, page);
        return page;
    }

    /** Writes {@code page} (changed, or new) back to {@code key}. */
    public void write(long key, FingerprintPage page) {
        read.remember(key, page);
        if (cache != null) {
            cache.put(shard, key, page);
            return;
        }
        try {
            pages.put(key, page);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write fingerprint page " + FingerprintBucket.pageIndexOf(key) + " of " + FingerprintBucket.pageCountOf(key), e);
        }
    }

    /**
     * Removes every section of {@code bucket} from {@code shard}'s pages (its key current), dropping pages left empty:
     * one pass over the shard's entries, once per bucket expiry. The cache first writes the shard's dirty pages and
     * forgets them all, so it holds no section of the dropped bucket afterwards.
     */
    public void removeBucket(int shard, long bucket) {
        beginRecord(shard);
        if (cache != null) {
            cache.forgetShard(shard);
        }
        PageEntries.removeBucket(pages, page -> page.removeBucket(bucket), FingerprintPage::isEmpty,
                "the fingerprint sections of bucket " + bucket);
    }
}
