package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The bytes of one {@link PageJournal} value: a shard's journaled inserts of one checkpoint interval, each as its format's
 * store journals it ({@link FormatStore#redo}: a {@code detail}, then {@code a} and {@code b}). Three layouts, each read
 * back; a checkpoint writes version 3.
 *
 * <pre>
 *   version 1 and 2 (as the journal collects an interval's entries, {@link PageJournal#record}):
 *     byte   version
 *     then, per entry, in insert order:
 *       byte   1 (a new bucket): long bucket, byte format ordinal; or 0 (the bucket of the entry before)
 *       varint detail
 *       a, b   two longs, or (version 2, a store that journals small numbers) two varints
 *   version 3 (what a checkpoint writes):
 *     byte   3
 *     then groups, one per (bucket, format, detail) or more:
 *       long   bucket
 *       byte   format ordinal
 *       varint detail
 *       byte   0 (HASHES): varint n, then n times long a, long b, in insert order
 *              1 (SORTED): varint m, varint c, byte l, varint H, then ceil((H + c l) / 64) longs: the Elias-Fano
 *                section ({@link EliasFanoSection}) of the c distinct values a m + b, in increasing order
 *              2 (VARINTS): varint n, then n times varint a, varint b
 * </pre>
 *
 * A varint is unsigned LEB128 (7 bits a byte, low group first).
 *
 * <p><b>Why version 3 sorts.</b> A fingerprint insert is journaled as its page and its section value, small numbers
 * drawn at random from a shard's pages times a section's value range. Written one by one as varints (version 2) they
 * take about 6-7 B each. The c inserts of an interval into one (bucket, part, band) of a shard are c distinct points of
 * {@code [0, P m)} ({@code P} pages, {@code m} above every value), and a set of c points of a range U costs at least
 * {@code log2(U / c) + 1.44} bits a point (the entropy of the choice); Elias-Fano coding takes {@code log2(U / c) + 2}
 * at most (class comment of {@link EliasFanoSection}), so the more inserts an interval brings a shard, the fewer bytes
 * each: at 50M impressions in state and 5 s checkpoints (about 3,000 inserts a shard an interval over some 10^9
 * points) about 2.6 B an insert. The bytes a checkpoint writes for them fall in proportion, and so does RocksDB's
 * compaction of them. A Bloom insert is journaled as its two probe hashes, 64 random bits each: nothing to gain, so its
 * groups keep them as they are ({@code HASHES}). A group of small numbers whose {@code P m} would not fit in 62 bits
 * (none that a plan makes) is written as varints ({@code VARINTS}).
 *
 * <p>Sorting changes what a restore redoes in no way but its order: every entry is redone, and redoing inserts gives the
 * same pages in any order ({@link PageJournal}, "What holds"); equal entries in one interval, which a journal does not
 * record, would be redone once. A sorted group is redone page after page, each page read once.
 */
final class JournalValues {

    /** The layout a checkpoint writes. */
    static final byte SORTED_VERSION = 3;
    /** The layout the journal collects an interval's entries in, and that an earlier release's checkpoints hold. */
    static final byte UNSORTED_VERSION = 2;
    /** The layout of the release before that: every entry with both probe hashes, 8 B each. */
    static final byte HASHES_VERSION = 1;

    static final byte SAME_BUCKET = 0;
    static final byte NEW_BUCKET = 1;

    private static final byte HASHES = 0;
    private static final byte SORTED = 1;
    private static final byte VARINTS = 2;

    /** Values of one sorted group at most: a section of this many values of up to 62 bits stays under its stream bound. */
    static final int MAX_SORTED_GROUP = 1 << 19;
    /** Composite values stay below this, the Elias-Fano section's bound (values within 63 bits, low parts up to 62). */
    private static final long MAX_COMPOSITE_RANGE = 1L << 62;

    private JournalValues() {
    }

    /**
     * The version 3 value of an interval's entries collected in the version 2 layout ({@code collected}, its first
     * {@code length} bytes); {@code smallNumbers} says, by format ordinal, which formats' entries are varints there.
     */
    static byte[] sorted(byte[] collected, int length, boolean[] smallNumbers) throws IOException {
        List<Group> groups = groupsOf(collected, length, smallNumbers);
        DataOutputSerializer out = new DataOutputSerializer(Math.max(64, length / 2));
        out.writeByte(SORTED_VERSION);
        for (Group group : groups) {
            if (!smallNumbers[group.format.ordinal()]) {
                writeHeader(out, group, HASHES);
                writeVarLong(out, group.size);
                for (int i = 0; i < group.size; i++) {
                    out.writeLong(group.a[i]);
                    out.writeLong(group.b[i]);
                }
            } else {
                writeSmallNumbers(out, group);
            }
        }
        return out.getCopyOfBuffer();
    }

    private static void writeSmallNumbers(DataOutputSerializer out, Group group) throws IOException {
        long maxA = 0;
        long maxB = 0;
        for (int i = 0; i < group.size; i++) {
            maxA = Math.max(maxA, group.a[i]);
            maxB = Math.max(maxB, group.b[i]);
        }
        long m = maxB + 1;
        if (maxA >= MAX_COMPOSITE_RANGE / m) { // (maxA + 1) m > 2^62
            writeHeader(out, group, VARINTS);
            writeVarLong(out, group.size);
            for (int i = 0; i < group.size; i++) {
                writeVarLong(out, group.a[i]);
                writeVarLong(out, group.b[i]);
            }
            return;
        }
        long[] values = new long[group.size];
        for (int i = 0; i < group.size; i++) {
            values[i] = group.a[i] * m + group.b[i];
        }
        Arrays.sort(values);
        int distinct = 0;
        for (int i = 0; i < values.length; i++) {
            if (distinct == 0 || values[i] != values[distinct - 1]) {
                values[distinct++] = values[i];
            }
        }
        for (int from = 0; from < distinct; from += MAX_SORTED_GROUP) {
            long[] chunk = Arrays.copyOfRange(values, from, Math.min(distinct, from + MAX_SORTED_GROUP));
            EliasFanoSection section = EliasFanoSection.of(chunk[chunk.length - 1] + 1, chunk);
            writeHeader(out, group, SORTED);
            writeVarLong(out, m);
            writeVarLong(out, section.count());
            out.writeByte(section.lowBits());
            writeVarLong(out, section.highBits());
            for (long word : section.words()) {
                out.writeLong(word);
            }
        }
    }

    private static void writeHeader(DataOutputSerializer out, Group group, byte coding) throws IOException {
        out.writeLong(group.bucket);
        out.writeByte(group.format.ordinal());
        writeVarLong(out, group.detail & 0xFFFFFFFFL);
        out.writeByte(coding);
    }

    /** The entries of a collected interval, grouped by (bucket, format, detail) in the order the groups first appear. */
    private static List<Group> groupsOf(byte[] collected, int length, boolean[] smallNumbers) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(collected, 0, length);
        byte version = in.readByte();
        if (version != UNSORTED_VERSION) {
            throw new IllegalStateException("entries collected in layout " + version + ", not " + UNSORTED_VERSION);
        }
        List<Group> groups = new ArrayList<>();
        Group last = null;
        long bucket = 0;
        StateFormat format = null;
        while (in.available() > 0) {
            if (in.readByte() == NEW_BUCKET) {
                bucket = in.readLong();
                format = StateFormat.values()[in.readByte()];
            }
            int detail = (int) readVarLong(in);
            boolean small = smallNumbers[format.ordinal()];
            long a = small ? readVarLong(in) : in.readLong();
            long b = small ? readVarLong(in) : in.readLong();
            if (last == null || last.bucket != bucket || last.format != format || last.detail != detail) {
                last = null;
                for (Group group : groups) {
                    if (group.bucket == bucket && group.format == format && group.detail == detail) {
                        last = group;
                        break;
                    }
                }
                if (last == null) {
                    last = new Group(bucket, format, detail);
                    groups.add(last);
                }
            }
            last.add(a, b);
        }
        return groups;
    }

    /** What a value holds, entry by entry, as {@link #read} finds it. */
    interface Entries {
        /** The entries that follow are of {@code bucket}, in {@code format}. */
        void bucket(long bucket, StateFormat format);

        /** An entry as its format's store journals it ({@link FormatStore#redo}). */
        void entry(int detail, long a, long b);

        /** An entry of a version 1 value: the insert's two probe hashes ({@link FormatStore#redoFromHashes}). */
        void fromHashes(int detail, long h1, long h2);
    }

    /**
     * Redoes every entry of {@code value}, of any version, through {@code stores} (begun on {@code shard}) against the
     * shard's restored {@code directory} ({@code null}: none); entries of a bucket the directory no longer holds in the
     * entry's format (it expired since) are skipped. Returns the entries redone.
     */
    static long redo(byte[] value, int shard, BucketFilters directory, FormatStores stores) throws IOException {
        Redo redo = new Redo(shard, directory, stores);
        boolean[] smallNumbers = new boolean[StateFormat.values().length];
        for (StateFormat format : StateFormat.values()) {
            smallNumbers[format.ordinal()] = stores.of(format).journalsSmallNumbers();
        }
        read(value, shard, smallNumbers, redo);
        return redo.redone;
    }

    /**
     * Reads every entry of {@code value}, of any version, into {@code entries}; {@code smallNumbers} says, by format
     * ordinal, which formats' entries a version 2 value holds as varints; {@code shard} names the value in messages.
     */
    static void read(byte[] value, int shard, boolean[] smallNumbers, Entries entries) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(value);
        byte version = in.readByte();
        if (version == SORTED_VERSION) {
            readSorted(in, shard, entries);
            return;
        }
        if (version != UNSORTED_VERSION && version != HASHES_VERSION) {
            throw new IllegalStateException("A page journal value of version " + version + " (this job reads versions "
                    + HASHES_VERSION + " to " + SORTED_VERSION + "): the checkpoint was written by another release of the"
                    + " job. Restore from a savepoint, which holds no journal.");
        }
        boolean small = false;
        while (in.available() > 0) {
            if (in.readByte() == NEW_BUCKET) {
                long bucket = in.readLong();
                StateFormat format = formatOf(in.readByte(), shard);
                entries.bucket(bucket, format);
                small = version == UNSORTED_VERSION && smallNumbers[format.ordinal()];
            }
            int detail = (int) readVarLong(in);
            long a = small ? readVarLong(in) : in.readLong();
            long b = small ? readVarLong(in) : in.readLong();
            if (version == HASHES_VERSION) {
                entries.fromHashes(detail, a, b);
            } else {
                entries.entry(detail, a, b);
            }
        }
    }

    private static void readSorted(DataInputDeserializer in, int shard, Entries entries) throws IOException {
        while (in.available() > 0) {
            long bucket = in.readLong();
            entries.bucket(bucket, formatOf(in.readByte(), shard));
            int detail = (int) readVarLong(in);
            byte coding = in.readByte();
            if (coding == SORTED) {
                long m = readVarLong(in);
                long[] values = readSection(in, shard);
                for (long v : values) {
                    entries.entry(detail, v / m, v % m);
                }
            } else if (coding == HASHES || coding == VARINTS) {
                long n = readVarLong(in);
                for (long i = 0; i < n; i++) {
                    long a = coding == HASHES ? in.readLong() : readVarLong(in);
                    long b = coding == HASHES ? in.readLong() : readVarLong(in);
                    entries.entry(detail, a, b);
                }
            } else {
                throw new IOException("Corrupt page journal value of shard " + shard + ": a group coded " + coding);
            }
        }
    }

    /** The values of a sorted group's section; nothing is allocated beyond what its header bounds. */
    private static long[] readSection(DataInputDeserializer in, int shard) throws IOException {
        long count = readVarLong(in);
        int lowBits = in.readUnsignedByte();
        long highBits = readVarLong(in);
        if (count < 1 || count > MAX_SORTED_GROUP || lowBits > EliasFanoSection.MAX_LOW_BITS
                || highBits > EliasFanoSection.MAX_STREAM_BITS
                || EliasFanoSection.streamBits((int) count, lowBits, (int) highBits) > EliasFanoSection.MAX_STREAM_BITS) {
            throw new IOException("Corrupt page journal value of shard " + shard + ": a sorted group of " + count
                    + " values of " + lowBits + " low bits and a high vector of " + highBits + " bits");
        }
        long[] words = new long[(int) ((EliasFanoSection.streamBits((int) count, lowBits, (int) highBits) + 63) >>> 6)];
        for (int w = 0; w < words.length; w++) {
            words[w] = in.readLong();
        }
        try {
            return EliasFanoSection.restore((int) count, lowBits, (int) highBits, words).values();
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt page journal value of shard " + shard + ": " + e.getMessage(), e);
        }
    }

    private static StateFormat formatOf(byte ordinal, int shard) throws IOException {
        if (ordinal < 0 || ordinal >= StateFormat.values().length) {
            throw new IOException("Corrupt page journal value of shard " + shard + ": format " + ordinal);
        }
        return StateFormat.values()[ordinal];
    }

    /** Redoes entries bucket by bucket: the bucket named last, its filter and store ({@code null}: expired since). */
    private static final class Redo implements Entries {
        private final int shard;
        private final BucketFilters directory;
        private final FormatStores stores;
        private long bucket;
        private BucketFilter filter;
        private FormatStore store;
        long redone;

        Redo(int shard, BucketFilters directory, FormatStores stores) {
            this.shard = shard;
            this.directory = directory;
            this.stores = stores;
        }

        @Override
        public void bucket(long bucket, StateFormat format) {
            this.bucket = bucket;
            this.filter = directory == null ? null : directory.get(bucket);
            this.store = filter != null && filter.format() == format ? stores.of(format) : null;
        }

        @Override
        public void entry(int detail, long a, long b) {
            if (store != null) { // else the bucket expired after the entry was written: nothing to redo
                stores.beginRecord(shard);
                store.redo(bucket, filter, detail, a, b);
                redone++;
            }
        }

        @Override
        public void fromHashes(int detail, long h1, long h2) {
            if (store != null) {
                stores.beginRecord(shard);
                store.redoFromHashes(bucket, filter, detail, h1, h2);
                redone++;
            }
        }
    }

    /** The entries of one (bucket, format, detail), in insert order. */
    private static final class Group {
        final long bucket;
        final StateFormat format;
        final int detail;
        long[] a = new long[16];
        long[] b = new long[16];
        int size;

        Group(long bucket, StateFormat format, int detail) {
            this.bucket = bucket;
            this.format = format;
            this.detail = detail;
        }

        void add(long first, long second) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
                b = Arrays.copyOf(b, size * 2);
            }
            a[size] = first;
            b[size] = second;
            size++;
        }
    }

    /** An unsigned varint: 7 bits a byte, low first, the high bit set on every byte but the last. */
    static void writeVarLong(DataOutputSerializer out, long value) throws IOException {
        while ((value & ~0x7FL) != 0) {
            out.writeByte((int) (value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte((int) value);
    }

    static long readVarLong(DataInputDeserializer in) throws IOException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.readByte();
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new IOException("Corrupt page journal value: a varint runs past 10 bytes");
    }
}
