package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The current shard's fingerprint pages ({@link FingerprintPage}), held in keyed {@code MapState} keyed by
 * {@link FingerprintBucket#pageKey} (the store's page count, the page index): the fingerprint format's page store, as
 * {@link MapStatePageGroups} is the Bloom format's.
 *
 * <p>Every bucket of a shard in the fingerprint format maps a record to the same page (its sizing's page count is
 * the plan's), so a lookup over all of them reads one entry and a unique record writes that entry back. A page
 * read in a record is remembered until {@link #beginRecord()}, so the lookup and the insert of one record read
 * state once. The page count is part of the key: buckets sized under another plan (another capacity) use other
 * pages, never a page of the wrong count.
 *
 * <p>With a {@link PageCache} (on RocksDB by default, when new buckets are in this format) pages are read through it
 * and written to it, not to state: the cache writes them back on eviction and before each checkpoint barrier.
 * Without one, each record reads (and on RocksDB deserializes) its page of about 1 KB.
 */
public final class MapStateFingerprintPages {

    private static final int MAX_FETCHED = 4;

    private final MapState<Long, FingerprintPage> pages;
    /** The write-back cache in front of {@link #pages}, or {@code null} to read and write state directly. */
    private final PageCache<FingerprintPage> cache;
    private int shard;
    private final long[] fetchedKeys = new long[MAX_FETCHED];
    private final FingerprintPage[] fetchedPages = new FingerprintPage[MAX_FETCHED];
    private int fetchedCount;

    /** Pages read from and written to {@code pages} directly, as the state tools read and write a savepoint. */
    public MapStateFingerprintPages(MapState<Long, FingerprintPage> pages) {
        this(pages, null);
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
        for (int i = 0; i < fetchedCount; i++) {
            fetchedPages[i] = null;
        }
        fetchedCount = 0;
    }

    /** The page at {@code key}, or {@code null} if it holds nothing yet. */
    public FingerprintPage read(long key) {
        for (int i = 0; i < fetchedCount; i++) {
            if (fetchedKeys[i] == key) {
                return fetchedPages[i];
            }
        }
        FingerprintPage page;
        try {
            page = cache != null ? cache.get(shard, key) : pages.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read fingerprint page " + FingerprintBucket.pageIndexOf(key) + " of " + FingerprintBucket.pageCountOf(key), e);
        }
        remember(key, page);
        return page;
    }

    /** Writes {@code page} (changed, or new) back to {@code key}. */
    public void write(long key, FingerprintPage page) {
        remember(key, page);
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

    private void remember(long key, FingerprintPage page) {
        for (int i = 0; i < fetchedCount; i++) {
            if (fetchedKeys[i] == key) {
                fetchedPages[i] = page;
                return;
            }
        }
        if (fetchedCount == MAX_FETCHED) {
            beginRecord(); // more page counts than any record meets; start over
        }
        fetchedKeys[fetchedCount] = key;
        fetchedPages[fetchedCount] = page;
        fetchedCount++;
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
        try {
            List<Long> changedKeys = new ArrayList<>();
            List<FingerprintPage> changedPages = new ArrayList<>();
            for (Iterator<Map.Entry<Long, FingerprintPage>> it = pages.iterator(); it.hasNext(); ) {
                Map.Entry<Long, FingerprintPage> entry = it.next();
                FingerprintPage page = entry.getValue();
                if (page.removeBucket(bucket)) {
                    if (page.isEmpty()) {
                        it.remove();
                    } else {
                        changedKeys.add(entry.getKey());
                        changedPages.add(page);
                    }
                }
            }
            for (int i = 0; i < changedKeys.size(); i++) {
                pages.put(changedKeys.get(i), changedPages.get(i));
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot remove the fingerprint sections of bucket " + bucket, e);
        }
    }
}
