package io.impressiondedup.operators.dedup.store;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.identity.HashMixing;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The second tier of a {@link PageCache}: the pages it evicts from the heap, serialized into managed memory, clean or dirty,
 * until the heap asks for them again, a checkpoint writes them, or room is needed.
 *
 * <p><b>Why.</b> A TaskManager started with Flink's defaults has 384 MiB of task heap for its 4 slots and 512 MiB of managed
 * memory, which RocksDB takes for its block cache and write buffers. The heap cache gets three quarters of a slot's heap (72
 * MiB); 50M impressions of Bloom state are about 120 MB a subtask. Past the heap cache every read was a RocksDB {@code get}
 * and every evicted dirty page a {@code put}, its flush, compaction and upload: 38 us of TaskManager CPU a record against 16
 * us with a cache that held the state (bench/results/2026-12-06-flink-defaults-50m-deferred-writes.txt). The operator declares
 * managed memory for itself (the job: {@code ManagedMemoryUseCase.OPERATOR}), so Flink gives it a share of the slot's managed
 * memory beside RocksDB's ({@code taskmanager.memory.managed.consumer-weights}: half with the defaults), and this tier holds
 * in it what the heap cannot. The pages here are also not in RocksDB's block cache, which they would otherwise occupy twice.
 *
 * <p><b>Exclusive.</b> A page is in the heap cache or here, never both: the heap cache adds only what it evicts, drops the
 * copy here of a page it takes back ({@link #discard}), and a write to the heap of a page held here drops this copy, which is
 * older. A page the heap has no room for stays here: {@link #peek} reads a copy, {@link #replace} writes it back in place.
 * A page held here dirty is newer than the one in state; a miss asks here before state.
 *
 * <p><b>Layout: a ring of records in the managed memory segments.</b> Each record is {@code [int length][int shard][long
 * key][serialized page]}, 8-byte aligned so that no header field crosses a segment (the key may begin the next one); a record never crosses the end of the
 * ring (a negative length pads to it). Records are appended at the head; the tail is where room is made: a record no
 * longer indexed (taken, discarded, replaced) is passed over, a live one is moved to the head while the live bytes leave a
 * sixteenth of the ring free (log cleaning), else evicted: written to state if dirty, dropped if clean. So the oldest pages
 * leave first (FIFO), and holes left by {@link #take} are reclaimed rather than counted against the budget. The index, on
 * the heap, maps (shard, key) to the record's offset, length, dirty flag and heap weight (what the journal's rule counts for
 * a dirty page: {@link PageJournal}) through an open-addressing table; {@value #INDEX_BYTES_PER_ENTRY} B an entry, one entry
 * per {@value #RECORD_BYTES_PER_ENTRY} B of ring.
 *
 * <p>Not thread-safe: the task thread only.
 */
final class OffHeapPageTier<V> {

    /** Writes a dirty page to state under its shard's key: an eviction, or a flush. */
    interface StateWriter<V> {
        void write(int shard, long key, V page, boolean eviction);
    }

    /** Ring bytes for which the index has an entry: a Bloom page group or a fingerprint page is about 1 KB serialized. */
    static final int RECORD_BYTES_PER_ENTRY = 512;
    /** Heap bytes of an index entry: key, offset (16), shard, length, weight (12), flags (1), two table slots (8), free list (4). */
    static final int INDEX_BYTES_PER_ENTRY = 41;
    private static final int HEADER_BYTES = 16;
    private static final byte DIRTY = 1;

    private final MemorySegment[] segments;
    private final int segmentSize;
    private final long ringBytes;
    private final TypeSerializer<V> serializer;
    private final StateWriter<V> writer;
    private final DataOutputSerializer out = new DataOutputSerializer(2048);
    private final DataInputDeserializer in = new DataInputDeserializer();
    private byte[] buffer = new byte[2048];
    private byte[] moving = new byte[2048];

    /** Next byte written, and oldest byte not reclaimed; both only grow, a position is {@code offset % ringBytes}. */
    private long head;
    private long tail;
    private long liveBytes;

    private final long[] keys;
    private final long[] offsets;
    private final int[] shards;
    private final int[] lengths;
    private final int[] weights;
    private final byte[] flags;
    private final int[] table;
    private final int mask;
    private final int[] freeEntries;
    private int freeCount;
    private int used;
    private int size;

    private boolean peekedDirty;
    private long hits;
    private long dirtyEvictions;

    /**
     * @param segments the managed memory the ring is laid over, all of one size (a multiple of 8)
     * @param serializer the pages' serializer (the page state's own)
     * @param writer writes an evicted or flushed dirty page to state
     */
    OffHeapPageTier(List<MemorySegment> segments, TypeSerializer<V> serializer, StateWriter<V> writer) {
        checkArgument(!segments.isEmpty(), "an off-heap page tier needs memory");
        this.segments = segments.toArray(new MemorySegment[0]);
        this.segmentSize = this.segments[0].size();
        for (MemorySegment segment : this.segments) {
            checkArgument(segment.size() == segmentSize && segmentSize % 8 == 0, "managed memory segments of %s bytes", segment.size());
        }
        this.ringBytes = (long) segmentSize * this.segments.length;
        this.serializer = serializer;
        this.writer = writer;
        int entries = (int) Math.max(4, Math.min(Integer.MAX_VALUE / 4, ringBytes / RECORD_BYTES_PER_ENTRY));
        keys = new long[entries];
        offsets = new long[entries];
        shards = new int[entries];
        lengths = new int[entries];
        weights = new int[entries];
        flags = new byte[entries];
        freeEntries = new int[entries];
        table = new int[Integer.highestOneBit(entries * 2 - 1) << 1];
        mask = table.length - 1;
    }

    /** Heap bytes of the index for {@code ringBytes} of ring: what the tier costs the heap cache's budget. */
    static long indexHeapBytes(long ringBytes) {
        return Math.max(4, ringBytes / RECORD_BYTES_PER_ENTRY) * INDEX_BYTES_PER_ENTRY;
    }

    /** Pages held. */
    int size() {
        return size;
    }

    /** Pages the heap cache found here. */
    long hits() {
        return hits;
    }

    /**
     * The page at {@code key} of {@code shard} if the tier holds it, deserialized (a copy: changes to it reach the tier only
     * through {@link #replace}), else {@code null}; whether it is dirty in {@link #peekedDirty()}. The tier keeps it.
     */
    V peek(int shard, long key) {
        int entry = find(shard, key);
        if (entry < 0) {
            return null;
        }
        peekedDirty = flags[entry] == DIRTY;
        hits++;
        return read(entry);
    }

    boolean peekedDirty() {
        return peekedDirty;
    }

    /** Drops the copy of the page at {@code key} of {@code shard}, if held: the heap cache has a newer one. */
    void discard(int shard, long key) {
        int entry = find(shard, key);
        if (entry >= 0) {
            remove(entry);
        }
    }

    /**
     * Holds {@code page}, evicted from the heap cache (no copy of it is held here); returns whether it did: a page whose record
     * is larger than the ring is not held, and the caller writes it to state if dirty.
     *
     * @param heapWeight the page's weight in the heap cache, which the journal's rule counts while it is dirty
     */
    boolean add(int shard, long key, V page, boolean dirty, long heapWeight) {
        discard(shard, key); // none is held (the heap cache holds what it evicts); were one, this page is newer
        return append(shard, key, serialize(page), dirty, heapWeight);
    }

    /**
     * Holds {@code page}, changed or not, dirty in place of the copy held at {@code key} of {@code shard} (the heap cache had
     * no room for it: {@link PageCache}); returns whether the tier held a copy and now holds this page. A record of the same
     * length is overwritten where it is (a Bloom group's bits set); another is appended at the head, the old one left a hole.
     * {@code false} if no copy is held (evicted since it was read) or the page is now larger than the ring, which the tier
     * then no longer holds: the caller keeps it.
     */
    boolean replace(int shard, long key, V page, long heapWeight) {
        int entry = find(shard, key);
        if (entry < 0) {
            return false;
        }
        int payload = serialize(page);
        if (recordLength(payload) == lengths[entry]) {
            copyIn(offsets[entry] + HEADER_BYTES, out.getSharedBuffer(), payload);
            flags[entry] = DIRTY;
            weights[entry] = (int) Math.min(Integer.MAX_VALUE, heapWeight);
            return true;
        }
        remove(entry);
        return append(shard, key, payload, true, heapWeight);
    }

    /** Appends the page serialized in {@link #out} ({@code payload} bytes) at the head; false if its record exceeds the ring. */
    private boolean append(int shard, long key, int payload, boolean dirty, long heapWeight) {
        int length = recordLength(payload);
        if (length > ringBytes) {
            return false;
        }
        while (freeCount == 0 && used == keys.length) {
            reclaimOldest(length, false); // the index is full: make an entry free, whatever the ring has
        }
        reserve(length, true);
        long offset = head;
        writeRecord(offset, length, shard, key, out.getSharedBuffer(), payload);
        head += length;
        int entry = freeCount > 0 ? freeEntries[--freeCount] : used++;
        keys[entry] = key;
        shards[entry] = shard;
        offsets[entry] = offset;
        lengths[entry] = length;
        weights[entry] = (int) Math.min(Integer.MAX_VALUE, heapWeight);
        flags[entry] = dirty ? DIRTY : 0;
        liveBytes += length;
        size++;
        int slot = home(shard, key);
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = entry + 1;
        return true;
    }

    /** Writes the dirty pages of the shards in {@code selected} ({@code null}: all) to state, keeping them, clean; returns how many. */
    int flush(BitSet selected) {
        int written = 0;
        for (int entry = 0; entry < used; entry++) {
            if (lengths[entry] > 0 && flags[entry] == DIRTY && (selected == null || selected.get(shards[entry]))) {
                writer.write(shards[entry], keys[entry], read(entry), false);
                flags[entry] = 0;
                written++;
            }
        }
        return written;
    }

    /** Adds the heap weights of each shard's dirty pages held here to {@code bytesByShard}. */
    void addDirtyBytes(long[] bytesByShard) {
        for (int entry = 0; entry < used; entry++) {
            if (lengths[entry] > 0 && flags[entry] == DIRTY) {
                bytesByShard[shards[entry]] += weights[entry];
            }
        }
    }

    /** Writes {@code shard}'s dirty pages to state and drops all of its pages (before one of its buckets is dropped). */
    void forgetShard(int shard) {
        for (int entry = 0; entry < used; entry++) {
            if (lengths[entry] > 0 && shards[entry] == shard) {
                if (flags[entry] == DIRTY) {
                    writer.write(shard, keys[entry], read(entry), false);
                }
                remove(entry);
            }
        }
    }

    private static int recordLength(int payload) {
        return (HEADER_BYTES + payload + 7) & ~7;
    }

    private int serialize(V page) {
        out.clear();
        try {
            serializer.serialize(page, out);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot serialize a page into the off-heap page tier", e);
        }
        return out.length();
    }

    /** The page of {@code entry}, deserialized from its record. */
    private V read(int entry) {
        int payload = lengths[entry] - HEADER_BYTES;
        if (buffer.length < payload) {
            buffer = new byte[Math.max(payload, buffer.length * 2)];
        }
        copyOut(offsets[entry] + HEADER_BYTES, buffer, payload);
        in.setBuffer(buffer, 0, payload);
        try {
            return serializer.deserialize(in);
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot read page " + keys[entry] + " of shard " + shards[entry] + " from the off-heap page tier", e);
        }
    }

    /**
     * Makes room for a record of {@code length} bytes at the head, padding to the end of the ring first if it would cross
     * it. Reclaims at the tail until there is room; live records met there are moved to the head while {@code mayMove} and
     * the live bytes leave a sixteenth of the ring free, and while this call has moved less than the ring (so it ends).
     */
    private void reserve(long length, boolean mayMove) {
        long moved = 0;
        while (true) {
            if (head == tail && head % ringBytes != 0) {
                head = tail = (head / ringBytes + 1) * ringBytes; // empty: start again at the ring's start
            }
            long position = head % ringBytes;
            long pad = position + length > ringBytes ? ringBytes - position : 0;
            if (head + pad + length - tail <= ringBytes) {
                if (pad > 0) {
                    segment(position).putInt(within(position), (int) -pad);
                    head += pad;
                }
                return;
            }
            moved += reclaimOldest(length, mayMove && moved < ringBytes);
        }
    }

    /**
     * Reclaims the record at the tail; returns the bytes it moved to the head. A pad or a record no longer indexed is passed
     * over; a live record is moved if {@code mayMove} and there is room, else evicted.
     */
    private long reclaimOldest(long incoming, boolean mayMove) {
        long position = tail % ringBytes;
        MemorySegment segment = segment(position);
        int at = within(position);
        int length = segment.getInt(at);
        if (length < 0) {
            tail += -length;
            return 0;
        }
        int shard = segment.getInt(at + 4);
        long key = keyAt(position);
        int entry = find(shard, key);
        if (entry < 0 || offsets[entry] != tail) {
            tail += length;
            return 0;
        }
        if (mayMove && liveBytes + incoming + length + ringBytes / 16 <= ringBytes) {
            move(entry);
            return length;
        }
        if (flags[entry] == DIRTY) {
            writer.write(shard, key, read(entry), true);
            dirtyEvictions++;
        }
        remove(entry);
        tail += length;
        return 0;
    }

    /** Moves a live record from the tail to the head, its bytes copied as they are. */
    private void move(int entry) {
        int length = lengths[entry];
        if (moving.length < length) {
            moving = new byte[Math.max(length, moving.length * 2)];
        }
        copyOut(tail, moving, length);
        tail += length;
        reserve(length, false);
        copyIn(head, moving, length);
        offsets[entry] = head;
        head += length;
    }

    private void writeRecord(long offset, int length, int shard, long key, byte[] payload, int payloadLength) {
        long position = offset % ringBytes;
        MemorySegment segment = segment(position);
        int at = within(position);
        segment.putInt(at, length);
        segment.putInt(at + 4, shard);
        segment(position + 8).putLong(within(position + 8), key); // the key's 8 bytes may begin the next segment
        copyIn(offset + HEADER_BYTES, payload, payloadLength);
    }

    private void copyIn(long offset, byte[] source, int length) {
        int done = 0;
        while (done < length) {
            long position = (offset + done) % ringBytes;
            int at = within(position);
            int n = Math.min(length - done, segmentSize - at);
            segment(position).put(at, source, done, n);
            done += n;
        }
    }

    private void copyOut(long offset, byte[] target, int length) {
        int done = 0;
        while (done < length) {
            long position = (offset + done) % ringBytes;
            int at = within(position);
            int n = Math.min(length - done, segmentSize - at);
            segment(position).get(at, target, done, n);
            done += n;
        }
    }

    /** The key in the header of the record at {@code position}: its 8 bytes may begin the segment after the length's. */
    private long keyAt(long position) {
        return segment(position + 8).getLong(within(position + 8));
    }

    private MemorySegment segment(long position) {
        return segments[(int) (position / segmentSize)];
    }

    private int within(long position) {
        return (int) (position % segmentSize);
    }

    private int home(int shard, long key) {
        return (int) (HashMixing.mix64(key + shard * 0x9E3779B97F4A7C15L) >>> 32) & mask;
    }

    private int find(int shard, long key) {
        for (int slot = home(shard, key); ; slot = (slot + 1) & mask) {
            int held = table[slot];
            if (held == 0) {
                return -1;
            }
            int entry = held - 1;
            if (keys[entry] == key && shards[entry] == shard) {
                return entry;
            }
        }
    }

    /** Forgets an entry (its record becomes a hole the tail passes over). */
    private void remove(int entry) {
        int slot = home(shards[entry], keys[entry]);
        while (table[slot] - 1 != entry) {
            slot = (slot + 1) & mask;
        }
        int hole = slot;
        for (int next = (hole + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int moved = table[next] - 1;
            int wanted = home(shards[moved], keys[moved]);
            boolean homeBetween = hole <= next ? (wanted > hole && wanted <= next) : (wanted > hole || wanted <= next);
            if (!homeBetween) {
                table[hole] = table[next];
                hole = next;
            }
        }
        table[hole] = 0;
        liveBytes -= lengths[entry];
        lengths[entry] = 0;
        flags[entry] = 0;
        freeEntries[freeCount++] = entry;
        size--;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "off-heap tier of %,d bytes: %,d pages in %,d bytes, %,d hits, %,d dirty evictions",
                ringBytes, size, liveBytes, hits, dirtyEvictions);
    }

    /** For tests: the entries' offsets are within the ring's live window and their records carry their keys. */
    boolean consistent() {
        for (int entry = 0; entry < used; entry++) {
            if (lengths[entry] > 0) {
                long offset = offsets[entry];
                if (offset < tail || offset + lengths[entry] > head) {
                    return false;
                }
                long position = offset % ringBytes;
                MemorySegment segment = segment(position);
                if (segment.getInt(within(position)) != lengths[entry] || keyAt(position) != keys[entry]
                        || find(shards[entry], keys[entry]) != entry) {
                    return false;
                }
            }
        }
        return Arrays.stream(lengths, 0, used).filter(l -> l > 0).count() == size;
    }
}
