package io.impressiondedup.operators.dedup.store;

import java.util.BitSet;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The current shard's pages of one format in keyed {@code MapState<Long, V>}, read and written by page key, through a
 * {@link PageCache} when there is one: the page access both formats share ({@link BloomStore} keeps page groups here,
 * {@link FingerprintStore} fingerprint pages).
 *
 * <p>A page read in a record, or found absent, is remembered until the next {@link #beginRecord(int)}
 * ({@link RecordPageMemo}), so a record's lookup in several buckets and its insert read state once per page. With a
 * cache, pages are read through it and written to it, not to state: the cache writes them back on eviction and before
 * each checkpoint barrier. Without one (the heap backend, the state tools' readers) each access goes to state.
 */
final class MapStatePages<V> {

    private final MapState<Long, V> state;
    /** The write-back cache in front of {@link #state}, or {@code null} to read and write state directly. */
    private final PageCache<V> cache;
    /** A page key in words, for messages: "Bloom page group 12 of slot 3". */
    private final LongFunction<String> describeKey;
    private final RecordPageMemo<V> read;
    private int shard;

    MapStatePages(MapState<Long, V> state, PageCache<V> cache, LongFunction<String> describeKey, int pagesPerRecord) {
        this.state = state;
        this.cache = cache;
        this.describeKey = describeKey;
        this.read = new RecordPageMemo<>(pagesPerRecord);
    }

    /** The shard of the current record. */
    int shard() {
        return shard;
    }

    /** Whether pages go through a cache (and changes to them are journaled). */
    boolean cached() {
        return cache != null;
    }

    /** Starts a record of {@code shard} (its key current): forgets the pages read so far. */
    void beginRecord(int shard) {
        this.shard = shard;
        read.clear();
    }

    /** The page at {@code key}, or {@code null} if it holds nothing yet. */
    V read(long key) {
        int slot = read.find(key);
        if (slot >= 0) {
            return read.at(slot);
        }
        V page;
        try {
            page = cache != null ? cache.get(shard, key) : state.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read " + describeKey.apply(key), e);
        }
        read.remember(key, page);
        return page;
    }

    /** Writes {@code page} (changed, or new) to {@code key}. */
    void write(long key, V page) {
        read.remember(key, page);
        if (cache != null) {
            cache.put(shard, key, page);
            return;
        }
        try {
            state.put(key, page);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write " + describeKey.apply(key), e);
        }
    }

    /**
     * Removes a bucket from every page in state of the current key's shard ({@code removeBucket} says whether a page held
     * any of it), dropping pages left empty: one pass over the shard's entries, once per bucket expiry. The caller has
     * written and forgotten the shard's cached pages first ({@link #writeShard}), so the cache holds no page of the dropped
     * bucket afterwards; the pages that stay go back into the cache, clean, as the pass left them in state ({@link
     * PageCache#offerClean}), so the shard's next lookups do not read each of them from state again.
     */
    void removeBucket(Predicate<V> removeBucket, Predicate<V> isEmpty, String what) {
        PageEntries.removeBucket(state, removeBucket, isEmpty, what,
                cache == null ? null : (key, page) -> cache.offerClean(shard, key, page));
    }

    /** Writes {@code shard}'s changed pages to state (its key current) and forgets its pages. */
    void writeShard(int shard) {
        this.shard = shard;
        if (cache != null) {
            cache.forgetShard(shard);
        }
        read.clear();
    }

    /** Writes the dirty cached pages of the shards in {@code selected} ({@code null}: all) back; returns how many. */
    int flush(BitSet selected) {
        return cache == null ? 0 : cache.flush(selected);
    }

    /** Adds the heap bytes of each shard's dirty cached pages to {@code bytesByShard}. */
    void addDirtyBytes(long[] bytesByShard) {
        if (cache != null) {
            cache.addDirtyBytes(bytesByShard);
        }
    }

    /** The heap the cache holds, bytes. */
    long heldBytes() {
        return cache == null ? 0 : cache.heldBytes();
    }
}
