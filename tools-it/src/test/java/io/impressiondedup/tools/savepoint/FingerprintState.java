package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.operators.dedup.store.ShardFilters;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Dedup state in the fingerprint format built on the heap by the operator's own {@link ShardFilters} (no secret, no
 * watermark: as {@code bootstrap} writes), or read back from a savepoint's {@link ShardEntry}s; asked with the same
 * lookup {@code inspect} makes.
 */
public final class FingerprintState {

    private final DedupPlan plan;
    private final TimeBuckets buckets;
    private final int shards;
    private final RequestIdDigester digester = new RequestIdDigester();
    public final TreeMap<Integer, BucketFilters> directories = new TreeMap<>();
    public final Map<Integer, Map<Long, FingerprintPage>> pages = new HashMap<>();

    public FingerprintState(DedupPlan plan) {
        this(plan, plan.timeBuckets(), plan.shards());
    }

    private FingerprintState(DedupPlan plan, TimeBuckets buckets, int shards) {
        this.plan = plan;
        this.buckets = buckets;
        this.shards = shards;
    }

    /** The state of {@code entries}, written for {@code shards} shards. */
    public static FingerprintState of(TimeBuckets buckets, int shards, List<ShardEntry> entries) {
        FingerprintState state = new FingerprintState(null, buckets, shards);
        for (ShardEntry entry : entries) {
            if (entry.isDirectory()) {
                state.directories.put(entry.shard, entry.directory());
            } else if (entry.fingerprintPage) {
                state.pages.computeIfAbsent(entry.shard, s -> new HashMap<>()).put(entry.address, entry.fingerprintPage());
            } else {
                throw new IllegalStateException("a Bloom page group in fingerprint state: " + entry);
            }
        }
        return state;
    }

    /** Inserts an impression unless a copy is found, as the operator does for a record in time. */
    public void insert(String requestId, String adId, long eventTime) {
        ShardFilters filters = new ShardFilters(plan);
        int shard = begin(filters, requestId, adId);
        BucketFilters directory = directories.computeIfAbsent(shard, s -> new BucketFilters());
        FormatStores stores = stores(shard);
        if (filters.bucketHolding(directory, stores, eventTime, false, Long.MIN_VALUE) == TimeBuckets.NO_BUCKET) {
            filters.insert(directory, stores, buckets.bucketOf(eventTime));
        }
    }

    /** Whether the lookup of {@code inspect} (and the operator) finds the impression. */
    public boolean holds(String requestId, String adId, long eventTime) {
        ShardFilters filters = ShardFilters.lookupsOnly(buckets);
        int shard = begin(filters, requestId, adId);
        BucketFilters directory = directories.get(shard);
        return directory != null
                && filters.bucketHolding(directory, stores(shard), eventTime, false, Long.MIN_VALUE) != TimeBuckets.NO_BUCKET;
    }

    private int begin(ShardFilters filters, String requestId, String adId) {
        digester.digest(requestId);
        filters.beginRecord(digester.high(), digester.low(), HashMixing.adIdHash(adId), 0L);
        return FingerprintScheme.shardOf(digester.high(), shards);
    }

    /** The stores of {@code shard}'s pages; its Bloom pages are never read: every bucket is a fingerprint bucket. */
    private FormatStores stores(int shard) {
        FormatStores stores = FormatStores.uncached(new HeapMapState<PageGroup>(new HashMap<>()),
                new HeapMapState<>(pages.computeIfAbsent(shard, s -> new HashMap<>())), plan, shards);
        stores.beginRecord(shard);
        return stores;
    }

    public List<ShardEntry> entries() {
        List<ShardEntry> entries = new ArrayList<>();
        directories.forEach((shard, directory) -> entries.add(ShardEntry.directory(shard, directory)));
        pages.forEach((shard, shardPages) -> shardPages.forEach((key, page) -> entries.add(ShardEntry.fingerprintPage(shard, key, page))));
        return entries;
    }

    public long insertedTotal() {
        long total = 0;
        for (BucketFilters directory : directories.values()) {
            for (int i = 0; i < directory.size(); i++) {
                total += directory.filterAt(i).inserted();
            }
        }
        return total;
    }

    public long pageBytes() {
        long bytes = 0;
        for (Map<Long, FingerprintPage> shardPages : pages.values()) {
            for (FingerprintPage page : shardPages.values()) {
                bytes += page.encodedBytes();
            }
        }
        return bytes;
    }
}
