package io.impressiondedup.operators.dedup;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.PageAddress;
import io.impressiondedup.state.PageGroup;
import io.impressiondedup.state.fingerprint.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * A bounded write-back cache of the Bloom {@link PageGroup}s of every shard of one subtask, on the heap in
 * front of the {@code bloom-page-groups} {@code MapState}, keyed by (shard, {@link PageAddress}).
 *
 * <p><b>Why.</b> On RocksDB a record's Bloom probe reads its page group through JNI and a unique record
 * writes it back: the two calls were 80% of the operator's time (docs/design/PROFILE.md). A hit here
 * touches no state. A miss reads state; a write only marks the group dirty. Dirty groups reach state when
 * evicted, before every checkpoint or savepoint barrier leaves the operator ({@link #flush()} from
 * {@code prepareSnapshotPreBarrier}, the same moment as the {@link BucketDirectoryCache}, so a checkpoint
 * holds pages and directory of the same instant) and at end of input. Absent groups are cached too (as
 * {@code null}): early in a bucket most probes find no page, and each would otherwise be a state read.
 *
 * <p><b>Keys.</b> One {@code long}: shard (under 2^20) in bits 59..40, the 40-bit page address below.
 * Entries live in dense arrays (key, group, flags) indexed by an open-addressing table of {@code int}s
 * (linear probing, backward-shift deletion): no boxing, no allocation per access.
 *
 * <p><b>Eviction: CLOCK.</b> A hit sets the entry's reference bit; the hand sweeps the entries, clears set
 * bits and evicts the first entry whose bit is clear. O(1) amortized, one bit per entry, no list to
 * relink on every hit (LRU would cost two pointer writes per access on the hottest path), and close to
 * LRU for this access pattern: uniform over a shard's pages with a skew towards hot shards. A dirty
 * victim is written to state under its own shard's key, then the record's key is made current again.
 *
 * <p><b>Copies.</b> When the backend keeps state as objects (the heap backend: {@code
 * isSafeToReuseKVState() == false}), the cache keeps private copies: of each group it reads and of each
 * group it writes back, because the backend's asynchronous snapshot must never see an object the task
 * thread changes. RocksDB serializes on every access, so there the objects are used as they are.
 *
 * <p><b>Keyed state.</b> {@link #get} and {@link #put} must be called with {@code shard}'s key current;
 * eviction and {@link #flush()} set other keys themselves through the given key setter.
 *
 * <p>Not thread-safe: the task thread only.
 */
final class PageGroupCache {

    /** The job's default budget on RocksDB (see {@code --page-cache-bytes}). */
    static final long DEFAULT_ROCKSDB_BYTES = 64L << 20;

    private static final byte OCCUPIED = 1;
    private static final byte REFERENCED = 2;
    private static final byte DIRTY = 4;
    private static final int SHARD_SHIFT = 40;

    private final MapState<Long, PageGroup> state;
    private final IntConsumer selectShardKey;
    private final boolean copies;
    private final Counter hits;
    private final Counter misses;
    private final Counter dirtyEvictions;

    private final int capacity;
    private final long[] keys;
    private final PageGroup[] groups;
    private final byte[] flags;
    /** Entry index + 1 per slot, 0 = empty; a power of two at least twice the capacity. */
    private final int[] table;
    private final int mask;
    /** Entries freed by {@link #forgetShard}, reused before the hand evicts anything. */
    private final int[] freeEntries;
    private int freeCount;
    private int used;
    private int hand;
    /** The shard whose key the caller made current, restored after writing another shard's group. */
    private int currentShard = -1;

    /**
     * @param state the page groups' keyed state
     * @param capacity the most groups held ({@link #groupsFor})
     * @param selectShardKey makes a shard's key the current key of the keyed state backend
     * @param copies whether state keeps the objects it is given (heap backend): then only copies cross
     */
    PageGroupCache(MapState<Long, PageGroup> state, int capacity, IntConsumer selectShardKey, boolean copies,
            Counter hits, Counter misses, Counter dirtyEvictions) {
        checkArgument(capacity > 0, "page cache capacity must be positive, but was %s", capacity);
        this.state = state;
        this.capacity = capacity;
        this.selectShardKey = selectShardKey;
        this.copies = copies;
        this.hits = hits;
        this.misses = misses;
        this.dirtyEvictions = dirtyEvictions;
        this.keys = new long[capacity];
        this.groups = new PageGroup[capacity];
        this.flags = new byte[capacity];
        this.freeEntries = new int[capacity];
        int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        this.table = new int[slots];
        this.mask = slots - 1;
    }

    /**
     * Heap bytes of one cached group on plan, with its share of the cache's arrays: a {@code PageGroup}
     * (16 B header + 2 references = 24 B), its owner array (16 + 8n), its page array (16 + 4n, rounded to 8)
     * and n pages of {@code pageBytes} (16 B header each), n = the plan's live buckets (every live bucket's
     * page at that index); plus key, reference, flags and two table slots (8 + 4 + 1 + 8 + 4 of the free
     * list = 25, counted 32). With the defaults (256 B pages, 5 live buckets): 24 + 56 + 40 + 5 x 272 + 32
     * = 1,512 B. Groups of filters over plan (growth layers) are larger; the estimate is of the plan.
     */
    static long bytesPerGroup(DedupPlan plan) {
        int n = plan.liveBuckets();
        long pageArray = (16 + 4L * n + 7) / 8 * 8;
        return 24 + (16 + 8L * n) + pageArray + n * (16L + plan.pageBytes()) + 32;
    }

    /** How many groups {@code bytes} of heap hold ({@link #bytesPerGroup}); at least one if {@code bytes} is positive. */
    static int groupsFor(long bytes, DedupPlan plan) {
        if (bytes <= 0) {
            return 0;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE / 4, bytes / bytesPerGroup(plan)));
    }

    int capacity() {
        return capacity;
    }

    /** Groups held (clean, dirty or known absent). */
    int size() {
        return used - freeCount;
    }

    /** The group at {@code address} of {@code shard} (its key current), or {@code null} if there is none. */
    PageGroup get(int shard, long address) {
        currentShard = shard;
        int entry = find(keyOf(shard, address));
        if (entry >= 0) {
            flags[entry] |= REFERENCED;
            hits.inc();
            return groups[entry];
        }
        misses.inc();
        PageGroup stored;
        try {
            stored = state.get(address);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read Bloom page group " + PageAddress.page(address) + " of slot "
                    + PageAddress.slot(address) + " of shard " + shard, e);
        }
        PageGroup group = copies && stored != null ? stored.copy() : stored;
        add(keyOf(shard, address), group, (byte) 0);
        return group;
    }

    /** Records that {@code group} (new, or changed in place) is the group at {@code address} of {@code shard}: it is now dirty. */
    void put(int shard, long address, PageGroup group) {
        currentShard = shard;
        long key = keyOf(shard, address);
        int entry = find(key);
        if (entry >= 0) {
            groups[entry] = group;
            flags[entry] |= DIRTY | REFERENCED;
        } else {
            add(key, group, DIRTY); // evicted between the read and this write: cached again
        }
    }

    /** Writes every dirty group to state under its shard's key; returns how many it wrote. */
    int flush() {
        int written = 0;
        for (int entry = 0; entry < used; entry++) {
            if ((flags[entry] & (OCCUPIED | DIRTY)) == (OCCUPIED | DIRTY)) {
                writeBack(entry, true);
                flags[entry] &= ~DIRTY;
                written++;
            }
        }
        if (written > 0 && currentShard >= 0) {
            selectShardKey.accept(currentShard);
        }
        return written;
    }

    /**
     * Writes {@code shard}'s dirty groups to state (its key must be current) and forgets all of its
     * groups: called before a bucket of the shard is dropped from state, so that the cache can neither
     * lose a write nor bring the dropped bucket's pages back. One pass over the cache per bucket expiry.
     */
    void forgetShard(int shard) {
        currentShard = shard;
        for (int entry = 0; entry < used; entry++) {
            if ((flags[entry] & OCCUPIED) != 0 && shardOf(keys[entry]) == shard) {
                if ((flags[entry] & DIRTY) != 0) {
                    writeBack(entry, false);
                }
                removeFromTable(keys[entry]);
                groups[entry] = null;
                flags[entry] = 0;
                freeEntries[freeCount++] = entry;
            }
        }
    }

    private static long keyOf(int shard, long address) {
        return ((long) shard << SHARD_SHIFT) | address;
    }

    private static int shardOf(long key) {
        return (int) (key >>> SHARD_SHIFT);
    }

    private static long addressOf(long key) {
        return key & ((1L << SHARD_SHIFT) - 1);
    }

    private int home(long key) {
        return (int) HashMixing.mix64(key) & mask;
    }

    private int find(long key) {
        for (int slot = home(key); ; slot = (slot + 1) & mask) {
            int entry = table[slot] - 1;
            if (entry < 0) {
                return -1;
            }
            if (keys[entry] == key) {
                return entry;
            }
        }
    }

    private void add(long key, PageGroup group, byte dirty) {
        int entry = allocate();
        keys[entry] = key;
        groups[entry] = group;
        flags[entry] = (byte) (OCCUPIED | dirty);
        int slot = home(key);
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = entry + 1;
    }

    /** A free entry: never used, freed by {@link #forgetShard}, or the CLOCK victim (written back if dirty). */
    private int allocate() {
        if (freeCount > 0) {
            return freeEntries[--freeCount];
        }
        if (used < capacity) {
            return used++;
        }
        while (true) {
            int entry = hand;
            hand = hand + 1 == capacity ? 0 : hand + 1;
            if ((flags[entry] & REFERENCED) != 0) {
                flags[entry] &= ~REFERENCED;
                continue;
            }
            if ((flags[entry] & DIRTY) != 0) {
                writeBack(entry, false);
                dirtyEvictions.inc();
            }
            removeFromTable(keys[entry]);
            groups[entry] = null;
            flags[entry] = 0;
            return entry;
        }
    }

    /** Puts an entry's group into state under its shard's key; restores the current shard's key unless {@code batch}. */
    private void writeBack(int entry, boolean batch) {
        long key = keys[entry];
        int shard = shardOf(key);
        long address = addressOf(key);
        boolean otherKey = batch || shard != currentShard;
        if (otherKey) {
            selectShardKey.accept(shard);
        }
        try {
            PageGroup group = groups[entry];
            if (group != null) { // a known absence made dirty cannot happen: put always gives a group
                state.put(address, copies ? group.copy() : group);
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write Bloom page group " + PageAddress.page(address) + " of slot "
                    + PageAddress.slot(address) + " of shard " + shard, e);
        }
        if (otherKey && !batch && currentShard >= 0) {
            selectShardKey.accept(currentShard);
        }
    }

    /** Linear-probing removal with backward shift, so that no later key of the run becomes unreachable. */
    private void removeFromTable(long key) {
        int slot = home(key);
        while (keys[table[slot] - 1] != key) {
            slot = (slot + 1) & mask;
        }
        int hole = slot;
        for (int next = (hole + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int wanted = home(keys[table[next] - 1]);
            // Move the entry at next into the hole unless its home lies cyclically in (hole, next].
            boolean homeBetween = hole <= next ? (wanted > hole && wanted <= next) : (wanted > hole || wanted <= next);
            if (!homeBetween) {
                table[hole] = table[next];
                hole = next;
            }
        }
        table[hole] = 0;
    }
}
