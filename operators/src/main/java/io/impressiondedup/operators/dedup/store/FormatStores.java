package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPageSerializer;
import io.impressiondedup.state.serialization.PageGroupSerializer;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stores of both formats for one subtask's shards ({@link FormatStore}), and the one place that picks a store: by a
 * bucket's format ({@link #of(BucketFilter)}), or by the plan's for new buckets ({@link #forNewBuckets()}). A shard holds
 * buckets of both formats while a change of {@code --state-format} works through the retention; each bucket is asked in
 * its own.
 *
 * <p><b>State layout</b> (the operator's {@code DedupStateLayout} names it). Per shard, beside the bucket directory: a
 * {@code MapState<Long, PageGroup>} with every page of every Bloom filter ({@link BloomStore}) and a {@code MapState<Long,
 * FingerprintPage>} with the sections of every fingerprint bucket ({@link FingerprintStore}). Pages are created on first
 * write.
 *
 * <p><b>Page cache.</b> On RocksDB the read of a page and a unique record's write of it are most of the operator's time,
 * so pages are cached on the heap ({@link PageCache}, {@link PageCacheBudget}): bounded, written back on eviction, before a
 * checkpoint's barrier and at the end of input; a bucket's expiry first writes back and forgets its shard's pages. The
 * budget goes to the format new buckets are created in, unless the restored state holds buckets of the other format (a
 * change of {@code --state-format} working through the retention): then each format gets a cache of half the budget, so
 * that a record, which meets the buckets of both, finds both in memory (uncached, the other format's reads and writes
 * made a 20M-impression state run at 0.17 of the keyed pass-through, against 0.49 in one format: bench/results,
 * 2026-11-28-flink-defaults-20m-fingerprints.txt). A restart that finds only the plan's format gives it the whole budget
 * again. Behind each cache, on RocksDB, an off-heap tier in the operator's managed memory ({@link OffHeapPageTier}) holds
 * what the heap evicts, split between the formats as the heap budget is. The state layout is the same with or without
 * the cache and its tier.
 */
public final class FormatStores {

    private static final Logger LOG = LoggerFactory.getLogger(FormatStores.class);

    /** By {@link StateFormat#ordinal()}. */
    private final FormatStore[] stores = new FormatStore[StateFormat.values().length];
    private final FormatStore forNewBuckets;
    private final String cacheDescription;
    /** What checkpoints write instead of changed cached pages, or {@code null} (no cache, or no journal). */
    private final PageJournal journal;
    /** The page caches, to report their off-heap tiers. */
    private final List<PageCache<?>> caches = new java.util.ArrayList<>(2);
    private int shard;

    private FormatStores(MapState<Long, PageGroup> pageGroups, MapState<Long, FingerprintPage> fingerprintPages, DedupPlan plan,
            int shards, PageCache<PageGroup> groupCache, PageCache<FingerprintPage> fingerprintCache, String cacheDescription,
            PageJournal journal) {
        this.journal = journal;
        Stream.of(groupCache, fingerprintCache).filter(java.util.Objects::nonNull).forEach(caches::add);
        stores[StateFormat.BLOOM.ordinal()] = new BloomStore(pageGroups, groupCache, plan, journal);
        stores[StateFormat.FINGERPRINTS.ordinal()] = new FingerprintStore(fingerprintPages, fingerprintCache, plan, shards, journal);
        this.forNewBuckets = plan == null ? null : of(plan.stateFormat());
        this.cacheDescription = cacheDescription;
    }

    /** Stores that read and write state directly, as the state tools read a savepoint; {@code plan} null: lookups only. */
    public static FormatStores uncached(MapState<Long, PageGroup> pageGroups, MapState<Long, FingerprintPage> fingerprintPages,
            DedupPlan plan, int shards) {
        return new FormatStores(pageGroups, fingerprintPages, plan, shards, null, null, "off", null);
    }

    /**
     * Stores cached within one shard's run of records, for a writer that gets them grouped by shard (the bootstrap tool):
     * reads and writes of the plan's format go through a cache of up to {@code budgetBytes}, and {@link #endShard} writes
     * the shard's changed pages to state, its key still current, and forgets them, so that a page a run touches many
     * times is read once and written once.
     */
    public static FormatStores cachedWithinShard(MapState<Long, PageGroup> pageGroups, MapState<Long, FingerprintPage> fingerprintPages,
            long budgetBytes, DedupPlan plan) {
        return cached(pageGroups, fingerprintPages, null, plan, budgetBytes, List.of(), false, shard -> {}, false, new SimpleCounter(),
                new SimpleCounter(), new SimpleCounter());
    }

    /**
     * The stores of a dedup subtask, with a cache of {@code budget} resolved against the TaskManager's configuration
     * {@code taskManager} ({@link PageCacheBudget#resolve}), its changes journaled in {@code journal} ({@link PageJournal});
     * logs which format new buckets take and the cache. {@code restored} are the subtask's restored bucket directories:
     * if any holds a bucket of the other format than the plan's, both formats are cached (class comment).
     *
     * @param tierMemory managed memory for the caches' off-heap tiers ({@link OffHeapPageTier}; empty: none), split between
     *     the formats as the heap budget is; used only where state serializes ({@code copies} false)
     * @param selectShardKey makes a shard's key the current key, for write-backs of another shard's pages
     * @param copies whether the backend hands out its own objects, which a cached page must then not be
     *     ({@code KeyedStateBackend#isSafeToReuseKVState})
     */
    public static FormatStores open(MapState<Long, PageGroup> pageGroups, MapState<Long, FingerprintPage> fingerprintPages,
            ListState<byte[]> journal, DedupPlan plan, PageCacheBudget budget, Configuration taskManager, List<MemorySegment> tierMemory,
            BucketFilters[] restored, IntConsumer selectShardKey, boolean copies, DedupMetrics metrics) {
        long cacheBytes = budget.resolve(taskManager, Runtime.getRuntime().maxMemory());
        FormatStores stores = cached(pageGroups, fingerprintPages, journal, plan, cacheBytes, copies ? List.of() : tierMemory,
                holdsOtherFormat(restored, plan.stateFormat()), selectShardKey, copies, metrics.pageCacheHits, metrics.pageCacheMisses,
                metrics.pageCacheDirtyEvictions);
        LOG.info("New buckets are stored as {} (--state-format); page cache: {}{}", plan.stateFormat().optionValue(),
                stores.cacheDescription, budget.isShareOfTaskHeap() ? ", " + budget.describe() : "");
        return stores;
    }

    /** Whether any of {@code directories} (null entries: shards without state) holds a bucket of another format than {@code format}. */
    static boolean holdsOtherFormat(BucketFilters[] directories, StateFormat format) {
        for (BucketFilters directory : directories) {
            for (int i = 0; directory != null && i < directory.size(); i++) {
                if (directory.filterAt(i).format() != format) {
                    return true;
                }
            }
        }
        return false;
    }

    private static FormatStores cached(MapState<Long, PageGroup> pageGroups, MapState<Long, FingerprintPage> fingerprintPages,
            ListState<byte[]> journal, DedupPlan plan, long budgetBytes, List<MemorySegment> tierMemory, boolean bothFormats,
            IntConsumer selectShardKey, boolean copies, Counter hits, Counter misses, Counter dirtyEvictions) {
        boolean fingerprints = plan.stateFormat() == StateFormat.FINGERPRINTS;
        long tierBytes = tierMemory.isEmpty() || budgetBytes == 0 ? 0 : (long) tierMemory.size() * tierMemory.get(0).size();
        // The tiers' indexes are on the heap: they come out of the heap budget, unless that leaves it less than half.
        long tierIndexBytes = OffHeapPageTier.indexHeapBytes(tierBytes);
        if (tierBytes > 0 && tierIndexBytes > budgetBytes / 2) {
            tierMemory = List.of();
            tierBytes = 0;
        }
        long cacheBytes = budgetBytes - (tierBytes > 0 ? tierIndexBytes : 0);
        long bloomBytes = bothFormats ? cacheBytes / 2 : fingerprints ? 0 : cacheBytes;
        long fingerprintBytes = bothFormats ? cacheBytes - bloomBytes : fingerprints ? cacheBytes : 0;
        int groups = PageCache.groupsFor(bloomBytes, plan);
        int fingerprintPageCount = PageCache.fingerprintPagesFor(fingerprintBytes, plan);
        PageCache<PageGroup> groupCache = groups == 0 ? null : new PageCache<>(pageGroups, "Bloom page group", bloomBytes,
                PageGroup::heapBytes, groups, PageCache.maxEntries(groups), selectShardKey, copies ? PageGroup::copy : null, hits, misses,
                dirtyEvictions);
        PageCache<FingerprintPage> fingerprintCache = fingerprintPageCount == 0 ? null : new PageCache<>(fingerprintPages,
                "fingerprint page", fingerprintBytes, FingerprintPage::heapBytes, fingerprintPageCount, PageCache.maxEntries(fingerprintPageCount),
                selectShardKey, copies ? FingerprintPage::copy : null, hits, misses, dirtyEvictions);
        List<MemorySegment> bloomTier = bothFormats ? tierMemory.subList(0, tierMemory.size() / 2) : fingerprints ? List.of() : tierMemory;
        List<MemorySegment> fingerprintTier = bothFormats ? tierMemory.subList(tierMemory.size() / 2, tierMemory.size())
                : fingerprints ? tierMemory : List.of();
        if (groupCache != null && !bloomTier.isEmpty()) {
            groupCache.attachTier(bloomTier, PageGroupSerializer.INSTANCE);
        }
        if (fingerprintCache != null && !fingerprintTier.isEmpty()) {
            fingerprintCache.attachTier(fingerprintTier, FingerprintPageSerializer.INSTANCE);
        }
        List<String> caches = new java.util.ArrayList<>(2);
        if (groupCache != null) {
            caches.add(groups + " Bloom page groups (" + bloomBytes + " bytes, at " + PageCache.bytesPerGroup(plan) + " each)");
        }
        if (fingerprintCache != null) {
            caches.add(fingerprintPageCount + " fingerprint pages (" + fingerprintBytes + " bytes, at "
                    + PageCache.bytesPerFingerprintPage(plan) + " each)");
        }
        String description = caches.isEmpty() ? "off" : String.join(" and ", caches)
                + (bothFormats ? ", half the budget each while the restored state holds both formats" : "")
                + (tierBytes > 0 && !caches.isEmpty() ? "; an off-heap tier of " + tierBytes + " bytes of managed memory (its index "
                        + tierIndexBytes + " bytes of the heap budget)" : "");
        PageJournal pageJournal = journal == null || caches.isEmpty() ? null : new PageJournal(journal, plan.shards());
        return new FormatStores(pageGroups, fingerprintPages, plan, plan.shards(), groupCache, fingerprintCache,
                description + (pageJournal == null ? "" : ", changes journaled at checkpoints"), pageJournal);
    }

    /** The store of {@code format}. */
    public FormatStore of(StateFormat format) {
        return stores[format.ordinal()];
    }

    /** The store of the format {@code filter} was created in. */
    public FormatStore of(BucketFilter filter) {
        return stores[filter.format().ordinal()];
    }

    /** The store of the plan's format, which new buckets take. */
    public FormatStore forNewBuckets() {
        return forNewBuckets;
    }

    /** The current record is of {@code shard} (its key current). */
    public void beginRecord(int shard) {
        this.shard = shard;
        for (FormatStore store : stores) {
            store.beginRecord(shard);
        }
    }

    /** Ends a run of one shard's records ({@link #cachedWithinShard}): its changed pages to state, its pages forgotten. */
    public void endShard() {
        for (FormatStore store : stores) {
            store.writeShard(shard);
        }
    }

    /**
     * Removes the pages of {@code dropped}, bucket {@code bucket} of {@code shard} (its key is current; {@code null}: none):
     * first every store writes the shard's changed pages and forgets them, so its journal is no longer needed.
     */
    public void removeBucket(int shard, long bucket, BucketFilter dropped) {
        if (dropped == null) {
            return;
        }
        for (FormatStore store : stores) {
            store.writeShard(shard);
        }
        of(dropped).removeBucket(shard, bucket);
        if (journal != null) {
            journal.shardWritten(shard);
        }
    }

    /**
     * At a checkpoint or savepoint, after the directories are written: the changed cached pages to state, or, per shard and
     * while it is fewer bytes, their journal ({@link PageJournal}); at a savepoint ({@code savepoint}) or without a journal,
     * every changed page. Returns how many pages were written.
     */
    public int snapshot(boolean savepoint, IntConsumer selectShardKey) throws Exception {
        if (journal == null) {
            return flush(null);
        }
        long[] dirtyBytes = new long[journal.shards()];
        for (FormatStore store : stores) {
            store.addDirtyBytes(dirtyBytes);
        }
        return journal.snapshot(savepoint, dirtyBytes, this::flush, selectShardKey);
    }

    /**
     * Redoes, at restore, the page journals a checkpoint holds ({@link PageJournal}), shard by shard against its restored
     * directory ({@code directoryOf}, called with the shard's key current); logs what it redid.
     */
    public void replayJournals(KeyedStateBackend<Integer> backend, ShardKeys shardKeys, ShardDirectories directoryOf) throws Exception {
        if (journal == null) {
            return;
        }
        List<Integer> keys;
        try (Stream<Integer> journaled = backend.getKeys(DedupStateLayout.PAGE_JOURNAL, VoidNamespace.INSTANCE)) {
            keys = journaled.collect(Collectors.toList()); // listed first: state is not written while it is iterated
        }
        long redone = 0;
        for (Integer key : keys) {
            backend.setCurrentKey(key);
            int shard = shardKeys.shardOf(key);
            redone += journal.replay(shard, directoryOf.get(shard), this);
        }
        if (!keys.isEmpty()) {
            LOG.info("Redid {} inserts from the page journals of {} shards", redone, keys.size());
        }
    }

    /** A shard's restored bucket directory, read with its key current. */
    @FunctionalInterface
    public interface ShardDirectories {
        BucketFilters get(int shard) throws Exception;
    }

    /** Whether checkpoints journal changes ({@link PageJournal}). */
    public boolean journaled() {
        return journal != null;
    }

    /** The shards whose journal is in state; 0 without a journal. */
    public int journaledShards() {
        return journal == null ? 0 : journal.shardsInState();
    }

    /** The last checkpoint's journal figures, for the log; "" without a journal. */
    public String lastCheckpoint() {
        return journal == null ? "" : journal.lastCheckpoint();
    }

    /** Writes the dirty cached pages of the shards in {@code selected} ({@code null}: all); returns how many were written. */
    private int flush(BitSet selected) {
        int flushed = 0;
        for (FormatStore store : stores) {
            flushed += store.flush(selected);
        }
        return flushed;
    }

    /** "off-heap tier of ... bytes: ... pages, ... hits, ...", one part per cache with a tier; empty without one. */
    public String tierFigures() {
        return caches.stream().map(PageCache::tier).filter(java.util.Objects::nonNull).map(Object::toString)
                .collect(Collectors.joining("; "));
    }

    /** The heap the caches hold, bytes. */
    public long heldBytes() {
        long held = 0;
        for (FormatStore store : stores) {
            held += store.heldBytes();
        }
        return held;
    }
}
