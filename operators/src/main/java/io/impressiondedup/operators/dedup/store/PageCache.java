package io.impressiondedup.operators.dedup.store;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.MemorySegment;
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
 * <p><b>Keys.</b> A shard and a {@code long} page key. Entries live in dense arrays indexed by an open-addressing
 * table (linear probing, backward-shift deletion): no boxing, no allocation per access. The lookup is laid out for
 * memory, which is what it waits on once the pages are many times the CPU caches (the profile of a 20M-impression
 * state: {@code find} was the operator's largest leaf): each table slot holds the key's 32-bit hash tag beside its
 * entry index, so a probe reads an entry only where the tags match; an entry's key, shard and flags share one 16-byte
 * record ({@link #entryWords}), so a hit reads and marks it in one cache line; and {@link #put} after {@link #get} of
 * the same page (an insert writes the page its lookup read) finds the entry without probing again.
 *
 * <p><b>Budget in bytes.</b> The cache holds at most {@code budgetBytes} of heap: each entry weighs its page's heap bytes
 * (the given weigher: {@code FingerprintPage#heapBytes}, {@code PageGroup#heapBytes}) plus {@value #ENTRY_BYTES} B of
 * its own slots, re-weighed at each write, and entries are evicted until the total is within the budget. Pages grow
 * with their buckets' fill, so a count of entries sized for pages on plan would hold several times the budget on a day
 * over plan; weighed, the cache holds fewer, larger pages, never more bytes. A single page larger than the whole budget
 * stays alone until the next one comes. The entry arrays start sized for pages on plan ({@link #bytesPerGroup}, {@link
 * #bytesPerFingerprintPage}) and, when full, double (up to {@code maxCapacity}) while the budget has room for the new
 * slots: pages below plan are smaller (a Bloom group holds the pages of the 3 or 4 buckets live most of the day, not the
 * plan's 5), and arrays of a fixed count left a third of the budget unused with 20M impressions in state (42 of 64 MiB
 * held, the rest of the state read and written through RocksDB). The slots of a growth are checked against the budget
 * when they are added and counted in an entry's weight once used.
 *
 * <p><b>Eviction: CLOCK.</b> A hit sets the entry's reference bit; the hand sweeps the entries, clears set
 * bits and evicts the first entry whose bit is clear. O(1) amortized, one bit per entry, no list to
 * relink on every hit (LRU would cost two pointer writes per access on the hottest path), and close to
 * LRU for this access pattern: uniform over a shard's pages with a skew towards hot shards. A dirty
 * victim is written to state under its own shard's key, then the record's key is made current again.
 *
 * <p><b>Off-heap tier.</b> Where the operator has managed memory ({@link #attachTier}), a page the hand evicts goes there,
 * serialized, clean or dirty ({@link OffHeapPageTier}), instead of to state; a miss asks the tier before state. A page found
 * there moves back to the heap, with its dirty flag, only if the heap has room for it without evicting another (a free
 * entry and budget); otherwise it stays in the tier: the record gets a copy, and a change to it is written back there
 * ({@link OffHeapPageTier#replace}). <i>Why:</i> a record's pages follow from its hash, so lookups spread evenly over all
 * pages, and while the pages outgrow the heap any of them held there hits as often as any other. Moving every page read
 * from the tier onto the heap evicted another into the tier at each such read, and each page moved lived on the heap long
 * enough to be promoted, then died in the old generation: with 50M impressions restored on Flink's defaults (weights of
 * {@link PageCacheBudget#TIER_CONSUMER_WEIGHTS}) collection took 3.0 us of a record's TaskManager CPU and, left in the
 * tier, 2.0 us; the Bloom format's CPU a record fell from 12.93 to 10.05 us, the fingerprint format's from 12.53 to 11.12
 * (bench/README.md). {@link #flush}, {@link #addDirtyBytes} and {@link #forgetShard} cover both tiers, so the journal's
 * rule and a checkpoint see a dirty page wherever it is. Only where state serializes (RocksDB): the heap backend keeps its
 * pages as objects already.
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

    /**
     * Heap bytes of an entry's own slots in the cache's arrays and table: key, shard and flags (16), page reference (4),
     * weight (8), two table slots (16) and its place in the free list (4).
     */
    static final int ENTRY_BYTES = 48;

    private static final int OCCUPIED = 1;
    private static final int REFERENCED = 2;
    private static final int DIRTY = 4;
    /** The high 32 bits of a table slot: the hash tag. */
    private static final long TAG_BITS = 0xFFFFFFFF00000000L;

    private final MapState<Long, V> state;
    private final IntConsumer selectShardKey;
    /** Makes the private copy of a page on the heap backend; {@code null} where state serializes (RocksDB). */
    private final UnaryOperator<V> copier;
    /** What a page is, for messages: "Bloom page group", "fingerprint page". */
    private final String what;
    private final Counter hits;
    private final Counter misses;
    private final Counter dirtyEvictions;

    /** Entries the arrays hold now; they grow up to {@link #maxCapacity} ({@link #grow}). */
    private int capacity;
    private final int maxCapacity;
    private final long budgetBytes;
    private final ToLongFunction<V> weigher;
    /** Heap bytes of each entry, as last weighed ({@link #ENTRY_BYTES} and its page's). */
    private long[] weights;
    private long heldBytes;
    /**
     * Two words per entry: {@code [2e]} its page key, {@code [2e + 1]} its flags (bits 32-39) and shard (bits 0-31). One
     * 16-byte record, so an entry's key, shard and flags are always in one cache line.
     */
    private long[] entryWords;
    private V[] groups;
    /**
     * Per slot, 0 = empty, else the key's hash tag (high 32 bits; its low bits are the slot's home) and entry index + 1
     * (low 32 bits); a power of two at least twice the capacity.
     */
    private long[] table;
    private int mask;
    /** Entries freed by {@link #forgetShard}, reused before the hand evicts anything. */
    private int[] freeEntries;
    private int freeCount;
    private int used;
    private int hand;
    /** The shard whose key the caller made current, restored after writing another shard's group. */
    private int currentShard = -1;
    /** The entry of the last {@link #get} or {@link #put}, tried first by {@link #put}; may have been evicted since. */
    private int lastEntry = -1;
    /** Where evicted pages go before state, or {@code null} (class comment). */
    private OffHeapPageTier<V> tier;

    /**
     * @param state the pages' keyed state
     * @param what what a page is, for messages
     * @param budgetBytes the most heap bytes held (class comment)
     * @param weigher a page's heap bytes
     * @param capacity the pages the arrays hold at first ({@link #groupsFor}, {@link #fingerprintPagesFor})
     * @param maxCapacity the most pages held, however small ({@code capacity} or more)
     * @param selectShardKey makes a shard's key the current key of the keyed state backend
     * @param copier the copy of a page, if state keeps the objects it is given (heap backend: then only copies
     *     cross); {@code null} if it serializes them
     */
    @SuppressWarnings("unchecked")
    PageCache(MapState<Long, V> state, String what, long budgetBytes, ToLongFunction<V> weigher, int capacity, int maxCapacity,
            IntConsumer selectShardKey, UnaryOperator<V> copier, Counter hits, Counter misses, Counter dirtyEvictions) {
        checkArgument(capacity > 0, "page cache capacity must be positive, but was %s", capacity);
        checkArgument(maxCapacity >= capacity, "page cache max capacity %s is below its capacity %s", maxCapacity, capacity);
        this.maxCapacity = maxCapacity;
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
        this.entryWords = new long[2 * capacity];
        this.groups = (V[]) new Object[capacity];
        this.freeEntries = new int[capacity];
        this.table = new long[tableSlots(capacity)];
        this.mask = table.length - 1;
    }

    /** Table slots for {@code capacity} entries: a power of two at least twice it. */
    private static int tableSlots(int capacity) {
        return Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
    }

    /**
     * Heap bytes of one cached group on plan, with its share of the cache's arrays: a {@code PageGroup} (16 B: header and
     * its array's reference) and its one array (16 B header, a count, an owner and a length per sub-page, the sub-pages'
     * words: {@code PageGroup#heapBytes}), n sub-pages of {@code pageBytes}, n = the plan's live buckets (every live
     * bucket's page at that index); plus the entry's own {@value #ENTRY_BYTES} B. With the defaults (256 B pages, 5 live
     * buckets): 16 + 16 + 8 x 11 + 5 x 256 + 48 = 1,448 B. Groups of filters over plan (growth layers) are larger; the
     * estimate is of the plan.
     */
    static long bytesPerGroup(DedupPlan plan) {
        int n = plan.liveBuckets();
        return 16 + 16 + 8L * (1 + 2L * n) + n * (long) plan.pageBytes() + ENTRY_BYTES;
    }

    /** How many groups {@code bytes} of heap hold ({@link #bytesPerGroup}); at least one if {@code bytes} is positive. */
    static int groupsFor(long bytes, DedupPlan plan) {
        return entriesFor(bytes, bytesPerGroup(plan));
    }

    /**
     * Heap bytes of one cached fingerprint page at the peak on plan: its {@code long[]} (16 B header, the page's
     * {@value FingerprintStoreSizing#DEFAULT_PAGE_BYTES} bytes of sections and their directory of 24 B a section, about
     * 5% of spare words) and the {@code FingerprintPage} (24 B), plus the entry's own {@value #ENTRY_BYTES} B: about 1.2 KB.
     */
    static long bytesPerFingerprintPage(DedupPlan plan) {
        long sections = plan.liveBuckets();
        return 16 + FingerprintStoreSizing.DEFAULT_PAGE_BYTES * 21L / 20 + 24 * sections + 24 + ENTRY_BYTES;
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

    /**
     * The most entries a cache whose arrays start at {@code entriesOnPlan} may grow to: four times as many, pages a quarter of
     * the plan's estimate (a Bloom group of one page of the plan's five, an early fingerprint page); the byte budget bounds
     * it first whenever pages are larger.
     */
    static int maxEntries(int entriesOnPlan) {
        return (int) Math.min(Integer.MAX_VALUE / 4, 4L * entriesOnPlan);
    }

    int capacity() {
        return capacity;
    }

    /**
     * Evicted pages go to {@code memory} (managed memory segments of one size), serialized by {@code serializer}, before state
     * (class comment). Only where state serializes: the heap backend's copies stay on the heap.
     */
    void attachTier(List<MemorySegment> memory, TypeSerializer<V> serializer) {
        checkArgument(copier == null, "an off-heap tier is for a backend that serializes its state");
        tier = new OffHeapPageTier<>(memory, serializer, this::writeToState);
    }

    /** The off-heap tier, or {@code null}. */
    OffHeapPageTier<V> tier() {
        return tier;
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
            setFlags(entry, flags(entry) | REFERENCED);
            lastEntry = entry;
            hits.inc();
            return groups[entry];
        }
        if (tier != null) {
            V group = tier.peek(shard, key);
            if (group != null) {
                long weight = weightOf(group);
                if (hasRoomFor(weight)) {
                    tier.discard(shard, key);
                    lastEntry = add(shard, key, group, tier.peekedDirty() ? DIRTY : 0, weight);
                } else {
                    lastEntry = -1; // served from the tier, where it stays (class comment)
                }
                return group;
            }
        }
        misses.inc();
        V stored;
        try {
            stored = state.get(key);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read " + what + " " + key + " of shard " + shard, e);
        }
        V group = copier != null && stored != null ? copier.apply(stored) : stored;
        lastEntry = add(shard, key, group, 0);
        trimToBudget(lastEntry);
        return group;
    }

    /**
     * Takes back {@code page}, the page at {@code key} of {@code shard} exactly as state holds it, as a clean entry: after a
     * bucket expiry has rewritten the shard's pages in state ({@link #forgetShard} first). Only where the heap has room for
     * it without evicting another page and holds none at that key; a private copy where the backend keeps objects. Why: after
     * the expiry only state holds the shard's pages as they now are, and without this each was read back from state at its
     * next lookup: every group of the shard after each expiry (bench/results/2026-12-08-small-profile-16m-both-clusters.md).
     */
    void offerClean(int shard, long key, V page) {
        if (page == null || find(shard, key) >= 0) {
            return;
        }
        long weight = weightOf(page);
        if (hasRoomFor(weight)) {
            add(shard, key, copier != null ? copier.apply(page) : page, 0, weight);
        }
    }

    /** Records that {@code group} (new, or changed in place) is the page at {@code key} of {@code shard}: it is now dirty. */
    void put(int shard, long key, V group) {
        currentShard = shard;
        int entry = holds(lastEntry, shard, key) ? lastEntry : find(shard, key);
        if (entry >= 0) {
            groups[entry] = group;
            setFlags(entry, flags(entry) | DIRTY | REFERENCED);
            long weight = weightOf(group);
            heldBytes += weight - weights[entry];
            weights[entry] = weight;
        } else {
            long weight = weightOf(group);
            if (tier != null) {
                if (!hasRoomFor(weight) && tier.replace(shard, key, group, weight)) {
                    lastEntry = -1; // served from the tier and written back there
                    return;
                }
                tier.discard(shard, key); // evicted between the read and this write: the tier's copy is older than this page
            }
            entry = add(shard, key, group, DIRTY, weight); // cached again
        }
        lastEntry = entry;
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
            if ((flags(entry) & (OCCUPIED | DIRTY)) == (OCCUPIED | DIRTY) && (selected == null || selected.get(shardOf(entry)))) {
                writeBack(entry, true);
                setFlags(entry, flags(entry) & ~DIRTY);
                written++;
            }
        }
        if (tier != null) {
            written += tier.flush(selected);
        }
        if (written > 0 && currentShard >= 0) {
            selectShardKey.accept(currentShard);
        }
        return written;
    }

    /** Adds the heap bytes of each shard's dirty groups to {@code bytesByShard} (indexed by shard). */
    void addDirtyBytes(long[] bytesByShard) {
        for (int entry = 0; entry < used; entry++) {
            if ((flags(entry) & (OCCUPIED | DIRTY)) == (OCCUPIED | DIRTY)) {
                bytesByShard[shardOf(entry)] += weights[entry];
            }
        }
        if (tier != null) {
            tier.addDirtyBytes(bytesByShard);
        }
    }

    /**
     * Writes {@code shard}'s dirty groups to state (its key must be current) and forgets all of its
     * groups: called before a bucket of the shard is dropped from state, so that the cache can neither
     * lose a write nor bring the dropped bucket's pages back. One pass over the cache per bucket expiry; the groups that
     * stay come back, as state then holds them, through {@link #offerClean}.
     */
    void forgetShard(int shard) {
        currentShard = shard;
        for (int entry = 0; entry < used; entry++) {
            if ((flags(entry) & OCCUPIED) != 0 && shardOf(entry) == shard) {
                if ((flags(entry) & DIRTY) != 0) {
                    writeBack(entry, false);
                }
                removeFromTable(entry);
                release(entry);
                freeEntries[freeCount++] = entry;
            }
        }
        if (tier != null) {
            tier.forgetShard(shard);
        }
    }

    /** The 32-bit hash tag of (shard, key): what a table slot keeps of its key; its low bits are the key's home slot. */
    private static long tag(int shard, long key) {
        return HashMixing.mix64(key + shard * 0x9E3779B97F4A7C15L) & TAG_BITS;
    }

    private int homeOf(long tag) {
        return (int) (tag >>> 32) & mask;
    }

    private long keyOf(int entry) {
        return entryWords[2 * entry];
    }

    private int shardOf(int entry) {
        return (int) entryWords[2 * entry + 1];
    }

    private int flags(int entry) {
        return (int) (entryWords[2 * entry + 1] >>> 32);
    }

    private void setFlags(int entry, int flags) {
        entryWords[2 * entry + 1] = (long) flags << 32 | (entryWords[2 * entry + 1] & 0xFFFFFFFFL);
    }

    /** Whether {@code entry} (possibly -1, or freed and reused since it was remembered) holds {@code shard}'s {@code key}. */
    private boolean holds(int entry, int shard, long key) {
        return entry >= 0 && (flags(entry) & OCCUPIED) != 0 && keyOf(entry) == key && shardOf(entry) == shard;
    }

    private int find(int shard, long key) {
        long tag = tag(shard, key);
        for (int slot = homeOf(tag); ; slot = (slot + 1) & mask) {
            long held = table[slot];
            if (held == 0) {
                return -1;
            }
            if ((held & TAG_BITS) == tag) {
                int entry = (int) held - 1;
                if (keyOf(entry) == key && shardOf(entry) == shard) {
                    return entry;
                }
            }
        }
    }

    /**
     * Whether the heap can take a page of {@code weight} ({@link #weightOf}) without evicting another: a free or unused entry
     * (the arrays grown if the budget allows) and room in the budget.
     */
    private boolean hasRoomFor(long weight) {
        return heldBytes + weight <= budgetBytes && (freeCount > 0 || used < capacity || grow());
    }

    /** Adds an entry; returns it. */
    private int add(int shard, long key, V group, int dirty) {
        return add(shard, key, group, dirty, weightOf(group));
    }

    /** Adds an entry for {@code group}, whose {@link #weightOf} is {@code weight}; returns it. */
    private int add(int shard, long key, V group, int dirty, long weight) {
        int entry = allocate();
        entryWords[2 * entry] = key;
        entryWords[2 * entry + 1] = (long) (OCCUPIED | dirty) << 32 | (shard & 0xFFFFFFFFL);
        groups[entry] = group;
        weights[entry] = weight;
        heldBytes += weight;
        long tag = tag(shard, key);
        int slot = homeOf(tag);
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = tag | (entry + 1L);
        return entry;
    }

    private long weightOf(V group) {
        return ENTRY_BYTES + (group == null ? 0 : weigher.applyAsLong(group));
    }

    /** A free entry: never used (the arrays grown if they may), freed by {@link #forgetShard} or {@link #trimToBudget}, or the CLOCK victim. */
    private int allocate() {
        if (freeCount > 0) {
            return freeEntries[--freeCount];
        }
        if (used < capacity || grow()) {
            return used++;
        }
        return evict(-1);
    }

    /**
     * Doubles the entry arrays (up to {@link #maxCapacity}) if the budget has room for the new slots beside the bytes held;
     * returns whether it did. The table is rebuilt from the entries' tags.
     */
    private boolean grow() {
        int grown = (int) Math.min(maxCapacity, 2L * capacity);
        if (grown <= capacity || heldBytes + (long) (grown - capacity) * ENTRY_BYTES > budgetBytes) {
            return false;
        }
        entryWords = Arrays.copyOf(entryWords, 2 * grown);
        groups = Arrays.copyOf(groups, grown);
        weights = Arrays.copyOf(weights, grown);
        freeEntries = Arrays.copyOf(freeEntries, grown);
        table = new long[tableSlots(grown)];
        mask = table.length - 1;
        for (int entry = 0; entry < used; entry++) {
            if ((flags(entry) & OCCUPIED) != 0) {
                long tag = tag(shardOf(entry), keyOf(entry));
                int slot = homeOf(tag);
                while (table[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = tag | (entry + 1L);
            }
        }
        capacity = grown;
        return true;
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
            int flags = flags(entry);
            if ((flags & OCCUPIED) == 0 || entry == kept) {
                continue;
            }
            if ((flags & REFERENCED) != 0) {
                setFlags(entry, flags & ~REFERENCED);
                continue;
            }
            boolean dirty = (flags & DIRTY) != 0;
            V group = groups[entry];
            boolean held = tier != null && group != null && tier.add(shardOf(entry), keyOf(entry), group, dirty, weights[entry]);
            if (dirty && !held) {
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
        setFlags(entry, 0);
    }

    /** Puts an entry's group into state under its shard's key; restores the current shard's key unless {@code batch}. */
    private void writeBack(int entry, boolean batch) {
        long key = keyOf(entry);
        int shard = shardOf(entry);
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

    /**
     * Puts {@code page} into state under {@code shard}'s key: the tier's writes. An eviction happens in a record of the
     * current shard, whose key is current and is made current again; a flush or a shard's forgetting may find any key
     * current (the journal selects shards at a checkpoint), so it always selects the page's, and its caller makes the
     * current shard's key current again.
     */
    private void writeToState(int shard, long key, V page, boolean eviction) {
        boolean otherKey = !eviction || shard != currentShard;
        if (otherKey) {
            selectShardKey.accept(shard);
        }
        try {
            state.put(key, copier != null ? copier.apply(page) : page);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write " + what + " " + key + " of shard " + shard, e);
        }
        if (eviction) {
            if (otherKey && currentShard >= 0) {
                selectShardKey.accept(currentShard);
            }
            dirtyEvictions.inc();
        }
    }

    /** Linear-probing removal of {@code entry} with backward shift, so that no later key of the run becomes unreachable. */
    private void removeFromTable(int entry) {
        int slot = homeOf(tag(shardOf(entry), keyOf(entry)));
        while ((int) table[slot] - 1 != entry) {
            slot = (slot + 1) & mask;
        }
        int hole = slot;
        for (int next = (hole + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int wanted = homeOf(table[next] & TAG_BITS); // the moved key's home, from its slot alone
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
