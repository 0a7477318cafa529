package io.impressiondedup.state.fingerprints;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a {@link FingerprintPage} (the value of one entry of a shard's fingerprint store).
 *
 * <p><b>Format v1</b>, byte by byte. A varint is unsigned LEB128 (7 bits a byte, low group first, high bit set
 * on every byte but the last); zigzag maps a signed n to {@code (n << 1) ^ (n >> 63)}.
 *
 * <pre>
 *   varint   S                           sections, 0..4096
 *   then S times, in strictly increasing (bucket, band) order:
 *     varint   zigzag(bucket - previous)   previous = 0 before the first section: 3 bytes for a day number, then 1
 *     byte     band                        0..16, or 17: the bucket's overflow section
 *                                          (FingerprintStoreSizing#OVERFLOW_BAND; only in state whose bucket
 *                                          directory is format v4 or later, which a job reading at most v3
 *                                          refuses at restore, so no reader of bands 0..16 meets it)
 *     varint   c                           distinct values, >= 1
 *     byte     l                           low bits, 0..62
 *     bytes    the section's bit stream    ceil((H + c l) / 8) bytes: bit k in bit (k mod 8) of byte k / 8;
 *                                          the high vector first, its end H implied by its c-th one bit,
 *                                          then c low parts of l bits; padding bits zero
 * </pre>
 *
 * The stream is the in-memory one ({@link EliasFanoSection}, held in the page's array), so a page re-serializes
 * to the same bytes. The value range U is not written: it belongs to the bucket ({@link ValueRanges}), and a
 * section reads without it. Headers cost 4-5 bytes a section, about 2% of a 1 KB page.
 *
 * <p>Corrupt input (a count, band or order out of range, a stream that ends early, a high vector whose values
 * decrease) throws an {@link IOException} that names the section and what is wrong; nothing is allocated
 * beyond what the bytes read so far justify, and at most {@link EliasFanoSection#MAX_STREAM_BITS} bits per
 * section. <b>Never change v1</b>: state written by it must read back identically.
 */
public final class FingerprintPageSerializer extends VersionedSerializer<FingerprintPage> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final FingerprintPageSerializer INSTANCE = new FingerprintPageSerializer(CURRENT_VERSION);

    /** More sections than this are corrupt data: a page holds one per live bucket and band. */
    static final int MAX_SECTIONS = 1 << 12;

    FingerprintPageSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public FingerprintPage createInstance() {
        return new FingerprintPage();
    }

    @Override
    public FingerprintPage copy(FingerprintPage from) {
        return from.copy();
    }

    @Override
    public void serialize(FingerprintPage page, DataOutputView target) throws IOException {
        writeVarLong(target, page.sectionCount());
        long previous = 0;
        for (int i = 0; i < page.sectionCount(); i++) {
            long bucket = page.bucketAt(i);
            writeVarLong(target, zigzag(bucket - previous));
            previous = bucket;
            target.writeByte(page.bandAt(i));
            writeVarLong(target, page.countAt(i));
            target.writeByte(page.lowBitsAt(i));
            long bytes = streamBytes(page.encodedBitsAt(i));
            for (long k = 0; k < bytes; k++) {
                target.writeByte((int) (page.streamWordAt(i, (int) (k >>> 3)) >>> ((k & 7) << 3)));
            }
        }
    }

    /** Bytes {@link #serialize} writes for {@code page}. */
    public static long serializedSize(FingerprintPage page) {
        long size = varLongSize(page.sectionCount());
        long previous = 0;
        for (int i = 0; i < page.sectionCount(); i++) {
            size += varLongSize(zigzag(page.bucketAt(i) - previous)) + 1 + varLongSize(page.countAt(i)) + 1
                    + streamBytes(page.encodedBitsAt(i));
            previous = page.bucketAt(i);
        }
        return size;
    }

    @Override
    public FingerprintPage deserialize(DataInputView source) throws IOException {
        long sections = readVarLong(source, "section count");
        if (sections < 0 || sections > MAX_SECTIONS) {
            throw new IOException("Corrupt fingerprint page: " + sections + " sections (at most " + MAX_SECTIONS + ")");
        }
        FingerprintPage page = new FingerprintPage();
        long previous = 0;
        int previousBand = -1;
        for (int i = 0; i < sections; i++) {
            long bucket = previous + unzigzag(readVarLong(source, "bucket of section " + i));
            int band = source.readUnsignedByte();
            String where = "section " + i + " (bucket " + bucket + ", band " + band + ")";
            if (band > FingerprintStoreSizing.OVERFLOW_BAND) {
                throw new IOException("Corrupt fingerprint page: " + where + ": band above " + FingerprintStoreSizing.OVERFLOW_BAND);
            }
            if (i > 0 && (bucket < previous || (bucket == previous && band <= previousBand))) {
                throw new IOException("Corrupt fingerprint page: " + where + " does not follow bucket " + previous + ", band "
                        + previousBand);
            }
            long count = readVarLong(source, "count of " + where);
            int lowBits = source.readUnsignedByte();
            if (count < 1 || count > EliasFanoSection.MAX_STREAM_BITS || lowBits > EliasFanoSection.MAX_LOW_BITS
                    || EliasFanoSection.streamBits((int) count, lowBits, 0) > EliasFanoSection.MAX_STREAM_BITS) {
                throw new IOException("Corrupt fingerprint page: " + where + ": " + count + " values of " + lowBits
                        + " low bits (at most " + EliasFanoSection.MAX_STREAM_BITS + " bits, " + EliasFanoSection.MAX_LOW_BITS
                        + " low bits)");
            }
            page.putSection(bucket, band, readSection(source, (int) count, lowBits, where));
            previous = bucket;
            previousBand = band;
        }
        return page;
    }

    /** Reads the high vector byte by byte up to its {@code count}-th one, then the low parts. */
    private static EliasFanoSection readSection(DataInputView source, int count, int lowBits, String where) throws IOException {
        long[] words = new long[Math.min(16, EliasFanoSection.wordsFor(2L * count))]; // grows with the bytes read
        long ones = 0;
        long k = 0;
        long highBits = -1;
        while (highBits < 0) {
            if ((k << 3) >= EliasFanoSection.MAX_STREAM_BITS) {
                throw new IOException("Corrupt fingerprint page: " + where + ": the high vector of " + count
                        + " values runs past " + EliasFanoSection.MAX_STREAM_BITS + " bits");
            }
            int b = source.readUnsignedByte();
            words = store(words, k++, b);
            int bitCount = Integer.bitCount(b);
            if (ones + bitCount >= count) {
                int bit = -1;
                for (long need = count - ones; need > 0; need--) {
                    bit = Integer.numberOfTrailingZeros(b);
                    b &= b - 1;
                }
                highBits = ((k - 1) << 3) + bit + 1;
            }
            ones += bitCount;
        }
        long streamBits = EliasFanoSection.streamBits(count, lowBits, (int) highBits);
        if (streamBits > EliasFanoSection.MAX_STREAM_BITS) {
            throw new IOException("Corrupt fingerprint page: " + where + ": a stream of " + streamBits + " bits");
        }
        long bytes = streamBytes(streamBits);
        for (; k < bytes; k++) {
            words = store(words, k, source.readUnsignedByte());
        }
        words = Arrays.copyOf(words, EliasFanoSection.wordsFor(streamBits));
        try {
            return EliasFanoSection.restore(count, lowBits, (int) highBits, words);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt fingerprint page: " + where + ": " + e.getMessage(), e);
        }
    }

    private static long[] store(long[] words, long k, int b) {
        int word = (int) (k >>> 3);
        if (word >= words.length) {
            words = Arrays.copyOf(words, words.length * 2);
        }
        words[word] |= (long) b << ((k & 7) << 3);
        return words;
    }

    private static long streamBytes(long bits) {
        return (bits + 7) >>> 3;
    }

    private static long zigzag(long n) {
        return (n << 1) ^ (n >> 63);
    }

    private static long unzigzag(long n) {
        return (n >>> 1) ^ -(n & 1);
    }

    private static void writeVarLong(DataOutputView target, long value) throws IOException {
        while ((value & ~0x7FL) != 0) {
            target.writeByte((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        target.writeByte((int) value);
    }

    private static int varLongSize(long value) {
        return value == 0 ? 1 : (63 - Long.numberOfLeadingZeros(value)) / 7 + 1;
    }

    private static long readVarLong(DataInputView source, String what) throws IOException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = source.readUnsignedByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("Corrupt fingerprint page: the varint of the " + what + " runs past 10 bytes");
    }

    @Override
    public TypeSerializerSnapshot<FingerprintPage> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link FingerprintPageSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<FingerprintPage> {
        public Snapshot() {
            super(CURRENT_VERSION, FingerprintPageSerializer::new);
        }
    }
}
