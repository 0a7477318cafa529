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
 * <p>No cache across records: on the heap backend a read returns the stored object; on RocksDB each record reads
 * and deserializes one page of about 1 KB (the trade is measured in docs/BENCHMARKS.md).
 */
public final class MapStateFingerprintPages {

    private static final int MAX_FETCHED = 4;

    private final MapState<Long, FingerprintPage> pages;
    private final long[] fetchedKeys = new long[MAX_FETCHED];
    private final FingerprintPage[] fetchedPages = new FingerprintPage[MAX_FETCHED];
    private int fetchedCount;

    public MapStateFingerprintPages(MapState<Long, FingerprintPage> pages) {
        this.pages = pages;
    }

    /** Starts a record (its shard's key current): forgets the pages read so far. */
    public void beginRecord() {
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
            page = pages.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read fingerprint page " + FingerprintBucket.pageIndexOf(key) + " of " + FingerprintBucket.pageCountOf(key), e);
        }
        remember(key, page);
        return page;
    }

    /** Writes {@code page} (changed, or new) back to {@code key}. */
    public void write(long key, FingerprintPage page) {
        remember(key, page);
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
     * Removes every section of {@code bucket} from the current shard's pages, dropping pages left empty: one pass
     * over the shard's entries, once per bucket expiry.
     */
    public void removeBucket(long bucket) {
        beginRecord();
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
