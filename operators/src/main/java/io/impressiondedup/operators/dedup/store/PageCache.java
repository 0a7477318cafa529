package io.impressiondedup.operators.dedup.store;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.BitSet;
import java.util.function.IntConsumer;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * A bounded write-back cache of the pages of every shard of one subtask, on the heap in front of a page
 * {@code MapState}, keyed by (shard, page key): the Bloom format's page groups ({@code bloom-page-groups},
 * {@code PageAddress} keys) or the fingerprint format's pages ({@code fingerprint-pages}, {@code
 * FingerprintBucket#pageKey} keys), one cache per format.
 *
 * <p><b>Why.</b> On RocksDB a record's Bloom probe reads its page group through JNI and a unique record
 * writes it back: the two calls were 80% of the operator's time (docs/design/PROFILE.md); a fingerprint page
 * is read and written the same way, and deserialized besides. A hit here touches no state. A miss reads state; a write only marks the group dirty. Dirty groups reach state when
 * evicted, before every checkpoint or savepoint barrier leaves the operator ({@link #flush()} from
 * {@code prepareSnapshotPreBarrier}, the same moment as the {@code BucketDirectoryCache}, so a checkpoint
 * holds pages and directory of the same instant) and at end of input. Absent groups are cached too (as
 * {@code null}): early in a bucket most probes find no page, and each would otherwise be a state read.
 *
 * <p><b>Keys.</b> A shard and a {@code long} page key. Entries live in dense arrays (shard, key, page, flags)
 * indexed by an open-addressing table of {@code int}s (linear probing, backward-shift deletion): no boxing, no
 * allocation per access.
 *
 * <p><b>Budget in bytes.</b> The cache holds at most {@code budgetBytes} of heap: each entry weighs its page's heap bytes
 * (the given weigher: {@code FingerprintPage#heapBytes}, {@code PageGroup#heapBytes}) plus {@value #ENTRY_BYTES} B of
 * its own slots, re-weighed at each write, and entries are evicted until the total is within the budget. Pages grow
 * with their buckets' fill, so a count of entries sized for pages on plan would hold several times the budget on a day
 * over plan; weighed, the cache holds fewer, larger pages, never more bytes. A single page larger than the whole budget
 * stays alone until the next one comes. The count of entries is bounded too, by the arrays sized for pages on plan
 * ({@link #bytesPerGroup}, {@link #bytesPerFingerprintPage}).
 *
 * <p><b>Eviction: CLOCK.</b> A hit sets the entry's reference bit; the hand sweeps the entries, clears set
 * bits and evicts the first entry whose bit is clear. O(1) amortized, one bit per entry, no list to
 * relink on every hit (LRU would cost two pointer writes per access on the hottest path), and close to
 * LRU for this access pattern: uniform over a shard's pages with a skew towards hot shards. A dirty
 * victim is written to state under its own shard's key, then the record's key is made current again.
 *
 * <p><b>Copies.</b> When the backend keeps state as objects (the heap backend: {@code
 * isSafeToReuseKVState() == false}), the cache keeps private copies (the given copier): of each page it reads
 * and of each page it writes back, because the backend's asynchronous snapshot must never see an object the
 * task thread changes. RocksDB serializes on every access, so there the objects are used as they are.
 *
 * <p><b>Keyed state.</b> {@link #get} and {@link #put} must be called with {@code shard}'s key current;
 * eviction and {@link #flush()} set other keys themselves through the given key setter.
 *
 * <p>Not thread-safe: the task thread only.
 */
final class PageCache<V> {

    /** The job's default budget on RocksDB (see {@code --page-cache-bytes}). */
    /** Heap bytes of an entry's own slots in the cache's arrays and table (key, shard, page reference, weight, flags, slots). */
    static final int ENTRY_BYTES = 40;

    private static final byte OCCUPIED = 1;
    private static final byte REFERENCED = 2;
    private static final byte DIRTY = 4;

    private final MapState<Long, V> state;
    private final IntConsumer selectShardKey;
    /** Makes the private copy of a page on the heap backend; {@code null} where state serializes (RocksDB). */
    private final UnaryOperator<V> copier;
    /** What a page is, for messages: "Bloom page group", "fingerprint page". */
    private final String what;
    private final Counter hits;
    private final Counter misses;
    private final Counter dirtyEvictions;

    private final int capacity;
    private final long budgetBytes;
    private final ToLongFunction<V> weigher;
    /** Heap bytes of each entry, as last weighed ({@link #ENTRY_BYTES} and its page's). */
    private final long[] weights;
    private long heldBytes;
    private final int[] shards;
    private final long[] keys;
    private final V[] groups;
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
     * @param state the pages' keyed state
     * @param what what a page is, for messages
     * @param budgetBytes the most heap bytes held (class comment)
     * @param weigher a page's heap bytes
     * @param capacity the most pages held ({@link #groupsFor}, {@link #fingerprintPagesFor})
     * @param selectShardKey makes a shard's key the current key of the keyed state backend
     * @param copier the copy of a page, if state keeps the objects it is given (heap backend: then only copies
     *     cross); {@code null} if it serializes them
     */
    @SuppressWarnings("unchecked")
    PageCache(MapState<Long, V> state, String what, long budgetBytes, ToLongFunction<V> weigher, int capacity, IntConsumer selectShardKey,
            UnaryOperator<V> copier, Counter hits, Counter misses, Counter dirtyEvictions) {
        checkArgument(capacity > 0, "page cache capacity must be positive, but was %s", capacity);
        checkArgument(budgetBytes > 0, "page cache budget must be positive, but was %s", budgetBytes);
        this.state = state;
        this.what = what;
        this.budgetBytes = budgetBytes;
        this.weigher = weigher;
        this.weights = new long[capacity];
        this.capacity = capacity;
        this.selectShardKey = selectShardKey;
        this.copier = copier;
        this.hits = hits;
        this.misses = misses;
        this.dirtyEvictions = dirtyEvictions;
        this.shards = new int[capacity];
        this.keys = new long[capacity];
        this.groups = (V[]) new Object[capacity];
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
        return entriesFor(bytes, bytesPerGroup(plan));
    }

    /**
     * Heap bytes of one cached fingerprint page at the peak on plan: its {@code long[]} (16 B header, the page's
     * {@value FingerprintStoreSizing#DEFAULT_PAGE_BYTES} bytes of sections and their directory of 24 B a section, about
     * 5% of spare words) and the {@code FingerprintPage} (24 B), plus the cache's share (32 B): about 1.2 KB.
     */
    static long bytesPerFingerprintPage(DedupPlan plan) {
        long sections = plan.liveBuckets();
        return 16 + FingerprintStoreSizing.DEFAULT_PAGE_BYTES * 21L / 20 + 24 * sections + 24 + 32;
    }

    /** How many fingerprint pages {@code bytes} of heap hold ({@link #bytesPerFingerprintPage}). */
    static int fingerprintPagesFor(long bytes, DedupPlan plan) {
        return entriesFor(bytes, bytesPerFingerprintPage(plan));
    }

    private static int entriesFor(long bytes, long bytesPerEntry) {
        if (bytes <= 0) {
            return 0;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE / 4, bytes / bytesPerEntry));
    }

    int capacity() {
        return capacity;
    }

    /** Groups held (clean, dirty or known absent). */
    int size() {
        return used - freeCount;
    }

    /** Heap bytes held: the entries' weights, never above the budget but for a single page larger than it. */
    long heldBytes() {
        return heldBytes;
    }

    /** The page at {@code key} of {@code shard} (its key current), or {@code null} if there is none. */
    V get(int shard, long key) {
        currentShard = shard;
        int entry = find(shard, key);
        if (entry >= 0) {
            flags[entry] |= REFERENCED;
            hits.inc();
            return groups[entry];
        }
        misses.inc();
        V stored;
        try {
            stored = state.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read " + what + " " + key + " of shard " + shard, e);
        }
        V group = copier != null && stored != null ? copier.apply(stored) : stored;
        trimToBudget(add(shard, key, group, (byte) 0));
        return group;
    }

    /** Records that {@code group} (new, or changed in place) is the page at {@code key} of {@code shard}: it is now dirty. */
    void put(int shard, long key, V group) {
        currentShard = shard;
        int entry = find(shard, key);
        if (entry >= 0) {
            groups[entry] = group;
            flags[entry] |= DIRTY | REFERENCED;
            long weight = weightOf(group);
            heldBytes += weight - weights[entry];
            weights[entry] = weight;
        } else {
            entry = add(shard, key, group, DIRTY); // evicted between the read and this write: cached again
        }
        trimToBudget(entry);
    }

    /** Writes every dirty group to state under its shard's key; returns how many it wrote. */
    int flush() {
        return flush(null);
    }

    /**
     * Writes the dirty groups of the shards in {@code selected} ({@code null}: of every shard) to state under their
     * shard's key, keeping them cached and clean; returns how many it wrote.
     */
    int flush(BitSet selected) {
        int written = 0;
        for (int entry = 0; entry < used; entry++) {
            if ((flags[entry] & (OCCUPIED | DIRTY)) == (OCCUPIED | DIRTY) && (selected == null || selected.get(shards[entry]))) {
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

    /** Adds the heap bytes of each shard's dirty groups to {@code bytesByShard} (indexed by shard). */
    void addDirtyBytes(long[] bytesByShard) {
        for (int entry = 0; entry < used; entry++) {
            if ((flags[entry] & (OCCUPIED | DIRTY)) == (OCCUPIED | DIRTY)) {
                bytesByShard[shards[entry]] += weights[entry];
            }
        }
    }

    /**
     * Writes {@code shard}'s dirty groups to state (its key must be current) and forgets all of its
     * groups: called before a bucket of the shard is dropped from state, so that the cache can neither
     * lose a write nor bring the dropped bucket's pages back. One pass over the cache per bucket expiry.
     */
    void forgetShard(int shard) {
        currentShard = shard;
        for (int entry = 0; entry < used; entry++) {
            if ((flags[entry] & OCCUPIED) != 0 && shards[entry] == shard) {
                if ((flags[entry] & DIRTY) != 0) {
                    writeBack(entry, false);
                }
                removeFromTable(entry);
                release(entry);
                freeEntries[freeCount++] = entry;
            }
        }
    }

    private int home(int shard, long key) {
        return (int) HashMixing.mix64(key + shard * 0x9E3779B97F4A7C15L) & mask;
    }

    private int find(int shard, long key) {
        for (int slot = home(shard, key); ; slot = (slot + 1) & mask) {
            int entry = table[slot] - 1;
            if (entry < 0) {
                return -1;
            }
            if (keys[entry] == key && shards[entry] == shard) {
                return entry;
            }
        }
    }

    /** Adds an entry; returns it. */
    private int add(int shard, long key, V group, byte dirty) {
        int entry = allocate();
        shards[entry] = shard;
        keys[entry] = key;
        groups[entry] = group;
        flags[entry] = (byte) (OCCUPIED | dirty);
        weights[entry] = weightOf(group);
        heldBytes += weights[entry];
        int slot = home(shard, key);
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = entry + 1;
        return entry;
    }

    private long weightOf(V group) {
        return ENTRY_BYTES + (group == null ? 0 : weigher.applyAsLong(group));
    }

    /** A free entry: never used, freed by {@link #forgetShard} or {@link #trimToBudget}, or the CLOCK victim. */
    private int allocate() {
        if (freeCount > 0) {
            return freeEntries[--freeCount];
        }
        if (used < capacity) {
            return used++;
        }
        return evict(-1);
    }

    /** Evicts entries other than {@code kept} (the one just read or written) until the held bytes are within the budget. */
    private void trimToBudget(int kept) {
        while (heldBytes > budgetBytes && size() > 1) {
            freeEntries[freeCount++] = evict(kept);
        }
    }

    /**
     * The CLOCK victim, never {@code kept}: the hand clears reference bits until it meets an entry without one, which it
     * writes back if dirty and frees; returns it.
     */
    private int evict(int kept) {
        while (true) {
            int entry = hand;
            hand = hand + 1 == used ? 0 : hand + 1;
            if ((flags[entry] & OCCUPIED) == 0 || entry == kept) {
                continue;
            }
            if ((flags[entry] & REFERENCED) != 0) {
                flags[entry] &= ~REFERENCED;
                continue;
            }
            if ((flags[entry] & DIRTY) != 0) {
                writeBack(entry, false);
                dirtyEvictions.inc();
            }
            removeFromTable(entry);
            release(entry);
            return entry;
        }
    }

    /** Forgets an entry's page and weight (its table slot is gone already). */
    private void release(int entry) {
        heldBytes -= weights[entry];
        weights[entry] = 0;
        groups[entry] = null;
        flags[entry] = 0;
    }

    /** Puts an entry's group into state under its shard's key; restores the current shard's key unless {@code batch}. */
    private void writeBack(int entry, boolean batch) {
        long key = keys[entry];
        int shard = shards[entry];
        boolean otherKey = batch || shard != currentShard;
        if (otherKey) {
            selectShardKey.accept(shard);
        }
        try {
            V group = groups[entry];
            if (group != null) { // a known absence made dirty cannot happen: put always gives a page
                state.put(key, copier != null ? copier.apply(group) : group);
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write " + what + " " + key + " of shard " + shard, e);
        }
        if (otherKey && !batch && currentShard >= 0) {
            selectShardKey.accept(currentShard);
        }
    }

    /** Linear-probing removal of {@code entry} with backward shift, so that no later key of the run becomes unreachable. */
    private void removeFromTable(int entry) {
        int slot = home(shards[entry], keys[entry]);
        while (table[slot] - 1 != entry) {
            slot = (slot + 1) & mask;
        }
        int hole = slot;
        for (int next = (hole + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int moved = table[next] - 1;
            int wanted = home(shards[moved], keys[moved]);
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
