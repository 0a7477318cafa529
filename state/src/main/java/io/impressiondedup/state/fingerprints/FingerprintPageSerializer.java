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
 * beyond what the section's header and the bytes read so far justify, and at most {@link EliasFanoSection#MAX_STREAM_BITS}
 * bits per section. <b>Never change v1</b>: state written by it must read back identically.
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
            writeStream(target, page, i, streamBytes(page.encodedBitsAt(i)));
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
        long sections = readVarLong(source, "section count", -1);
        if (sections < 0 || sections > MAX_SECTIONS) {
            throw new IOException("Corrupt fingerprint page: " + sections + " sections (at most " + MAX_SECTIONS + ")");
        }
        int n = (int) sections;
        long[] buckets = new long[n];
        int[] bands = new int[n];
        EliasFanoSection[] read = new EliasFanoSection[n];
        long previous = 0;
        int previousBand = -1;
        for (int i = 0; i < n; i++) {
            long bucket = previous + unzigzag(readVarLong(source, "bucket of section", i));
            int band = source.readUnsignedByte();
            if (band > FingerprintStoreSizing.OVERFLOW_BAND) {
                throw new IOException("Corrupt fingerprint page: " + where(i, bucket, band) + ": band above " + FingerprintStoreSizing.OVERFLOW_BAND);
            }
            if (i > 0 && (bucket < previous || (bucket == previous && band <= previousBand))) {
                throw new IOException("Corrupt fingerprint page: " + where(i, bucket, band) + " does not follow bucket " + previous
                        + ", band " + previousBand);
            }
            long count = readVarLong(source, "count of section", i);
            int lowBits = source.readUnsignedByte();
            if (count < 1 || count > EliasFanoSection.MAX_STREAM_BITS || lowBits > EliasFanoSection.MAX_LOW_BITS
                    || EliasFanoSection.streamBits((int) count, lowBits, 0) > EliasFanoSection.MAX_STREAM_BITS) {
                throw new IOException("Corrupt fingerprint page: " + where(i, bucket, band) + ": " + count + " values of " + lowBits
                        + " low bits (at most " + EliasFanoSection.MAX_STREAM_BITS + " bits, " + EliasFanoSection.MAX_LOW_BITS
                        + " low bits)");
            }
            buckets[i] = bucket;
            bands[i] = band;
            read[i] = readSection(source, (int) count, lowBits, i, bucket, band);
            previous = bucket;
            previousBand = band;
        }
        return FingerprintPage.ofOrderedSections(buckets, bands, read, n);
    }

    /** Names a section in a message: built only when one is thrown. */
    private static String where(int index, long bucket, int band) {
        return "section " + index + " (bucket " + bucket + ", band " + band + ")";
    }

    /**
     * Writes the first {@code bytes} bytes of section {@code index}'s stream: byte k is bits 8k..8k+7 of the stream, so a whole
     * word is its eight bytes in little-endian order, written at once ({@code writeLong} writes big-endian, hence the reversal).
     */
    private static void writeStream(DataOutputView target, FingerprintPage page, int index, long bytes) throws IOException {
        int wholeWords = (int) (bytes >>> 3);
        for (int w = 0; w < wholeWords; w++) {
            target.writeLong(Long.reverseBytes(page.streamWordAt(index, w)));
        }
        for (long k = (long) wholeWords << 3; k < bytes; k++) {
            target.writeByte((int) (page.streamWordAt(index, wholeWords) >>> ((k & 7) << 3)));
        }
    }

    /**
     * Reads a section's stream: first the bytes it holds at least (the high vector has {@code count} bits or more, then
     * {@code count} low parts), then, until the {@code count}-th one is among the bits read (the high vector's end), the bytes
     * the stream must hold beyond them, then the low parts left. Never reads past the stream: each read is of bytes the
     * stream holds whatever its high vector's length.
     */
    private static EliasFanoSection readSection(DataInputView source, int count, int lowBits, int index, long bucket, int band)
            throws IOException {
        // Sized for a high vector of 2 count bits, what one on plan takes (EliasFanoSection): grown if it is longer.
        long[] words = new long[EliasFanoSection.wordsFor(Math.min(EliasFanoSection.streamBits(count, lowBits, 2 * count),
                EliasFanoSection.MAX_STREAM_BITS))];
        long read = 0;
        long scanned = 0; // bits searched for ones so far
        long ones = 0;
        long highBits = -1;
        long most = streamBytes(EliasFanoSection.MAX_STREAM_BITS);
        long known = Math.min(streamBytes(EliasFanoSection.streamBits(count, lowBits, count)), most);
        while (highBits < 0) {
            if ((read << 3) >= EliasFanoSection.MAX_STREAM_BITS) {
                throw new IOException("Corrupt fingerprint page: " + where(index, bucket, band) + ": the high vector of " + count
                        + " values runs past " + EliasFanoSection.MAX_STREAM_BITS + " bits");
            }
            words = readBytes(source, words, read, known);
            read = known;
            while (scanned < (read << 3) && highBits < 0) {
                long upTo = Math.min((scanned | 63) + 1, read << 3); // to the word's end or the last bit read (later bits: 0)
                long word = words[(int) (scanned >>> 6)] >>> (scanned & 63);
                int inWord = Long.bitCount(word);
                if (ones + inWord >= count) {
                    for (long need = count - ones; need > 1; need--) {
                        word &= word - 1;
                    }
                    highBits = scanned + Long.numberOfTrailingZeros(word) + 1;
                }
                ones += inWord;
                scanned = upTo;
            }
            // Not found: the high vector runs past the bits read and the low parts follow it; more than the most a section
            // may hold is corrupt (the check above, at the next turn).
            known = Math.min(streamBytes((read << 3) + 1 + (long) count * lowBits), most);
        }
        long streamBits = EliasFanoSection.streamBits(count, lowBits, (int) highBits);
        if (streamBits > EliasFanoSection.MAX_STREAM_BITS) {
            throw new IOException("Corrupt fingerprint page: " + where(index, bucket, band) + ": a stream of " + streamBits + " bits");
        }
        long bytes = streamBytes(streamBits);
        words = readBytes(source, words, read, bytes);
        if (words.length != EliasFanoSection.wordsFor(streamBits)) {
            words = Arrays.copyOf(words, EliasFanoSection.wordsFor(streamBits));
        }
        try {
            return EliasFanoSection.restore(count, lowBits, (int) highBits, words);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt fingerprint page: " + where(index, bucket, band) + ": " + e.getMessage(), e);
        }
    }

    /** Reads stream bytes {@code from} to {@code to} into {@code words} (grown as needed), whole words at once where aligned. */
    private static long[] readBytes(DataInputView source, long[] words, long from, long to) throws IOException {
        int needed = (int) ((to + 7) >>> 3);
        if (needed > words.length) {
            words = Arrays.copyOf(words, Math.max(needed, words.length * 2));
        }
        long k = from;
        for (; k < to && (k & 7) != 0; k++) {
            words[(int) (k >>> 3)] |= (long) source.readUnsignedByte() << ((k & 7) << 3);
        }
        for (; k + 8 <= to; k += 8) {
            words[(int) (k >>> 3)] = Long.reverseBytes(source.readLong());
        }
        for (; k < to; k++) {
            words[(int) (k >>> 3)] |= (long) source.readUnsignedByte() << ((k & 7) << 3);
        }
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

    /** A varint; {@code what} and {@code section} (or -1) name it in the message if it runs past 10 bytes. */
    private static long readVarLong(DataInputView source, String what, int section) throws IOException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = source.readUnsignedByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("Corrupt fingerprint page: the varint of the " + what + (section >= 0 ? " " + section : "")
                + " runs past 10 bytes");
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
