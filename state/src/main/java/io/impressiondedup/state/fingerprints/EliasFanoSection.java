package io.impressiondedup.state.fingerprints;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * The sorted distinct values of one (bucket, band) section of a {@link FingerprintPage}, each in {@code
 * [0, U)}, Elias-Fano coded: immutable; an insert returns the re-encoded section.
 *
 * <p><b>Encoding</b> (Elias 1974, Fano 1971; Vigna, "Quasi-succinct indices", WSDM 2013). For c values
 * in {@code [0, U)} take {@code l = max(0, floor(log2(U / c)))} low bits. Value i splits into its low
 * part {@code v_i & (2^l - 1)} and its high part {@code h_i = v_i >>> l}. The high parts go into a bit
 * vector in unary: value i sets bit {@code h_i + i}, so the number of zeros before that bit is {@code
 * h_i}. The vector ends at the last value's bit, {@code H = h_(c-1) + c} bits. The low parts follow,
 * {@code l} bits each. Since {@code 2^l > U / 2c}, {@code h_(c-1) < 2c} and the section takes under
 * {@code c (l + 3)} bits, on average {@code log2(U/c) + 1.9 to 2} bits per value.
 *
 * <p><b>Why Elias-Fano.</b> A lookup finds the values that share its high part with one select over
 * about 2c bits (a scan of {@link Long#bitCount} per word, then {@link Long#numberOfTrailingZeros}
 * inside the word) and compares their low parts in place: random access, no decode of the section.
 * Golomb-Rice coding of the gaps would take about 0.4 bit per value less, but can only be read from
 * the start. A library such as sux4j was not used: its structures persist by Java serialization,
 * which is not a stable state format we control.
 *
 * <p><b>In memory</b> one {@code long[]}, bit k of the stream at bit {@code k & 63} of word {@code k
 * >>> 6}: the high vector from bit 0 (so a select scans aligned words), the low parts from bit {@code
 * H}. That bit stream is also the serialized form ({@code FingerprintPageSerializer}). A lookup reads
 * the array and allocates nothing.
 */
public final class EliasFanoSection {

    /** Low parts wider than this would not leave a high part in a 63-bit value. */
    public static final int MAX_LOW_BITS = 62;
    /** Bits of a section's stream above which it is corrupt data, not a big section (4 MiB). */
    public static final long MAX_STREAM_BITS = 1L << 25;

    private final int count;
    private final int lowBits;
    private final int highBits;
    private final long[] words;

    private EliasFanoSection(int count, int lowBits, int highBits, long[] words) {
        this.count = count;
        this.lowBits = lowBits;
        this.highBits = highBits;
        this.words = words;
    }

    /** The low-part width for {@code count} values in {@code [0, valueRange)}: {@code max(0, floor(log2(U / c)))}. */
    public static int lowBitsFor(long valueRange, int count) {
        checkArgument(count > 0 && count <= valueRange, "count must be in [1, %s], but was %s", valueRange, count);
        long ratio = valueRange / count; // floor(log2(U/c)) = floor(log2(floor(U/c))) for U/c >= 1
        return 63 - Long.numberOfLeadingZeros(ratio);
    }

    /** The section of one value. */
    public static EliasFanoSection of(long valueRange, long value) {
        return of(valueRange, new long[] {value});
    }

    /** The section of {@code sortedValues}: strictly increasing, each in {@code [0, valueRange)}. */
    public static EliasFanoSection of(long valueRange, long[] sortedValues) {
        checkArgument(valueRange > 0, "value range must be positive, but was %s", valueRange);
        checkArgument(sortedValues.length > 0, "a section holds at least one value");
        for (int i = 0; i < sortedValues.length; i++) {
            long v = sortedValues[i];
            checkArgument(v >= 0 && v < valueRange, "value %s is outside [0, %s)", v, valueRange);
            checkArgument(i == 0 || v > sortedValues[i - 1], "values must be strictly increasing, but %s follows %s", v,
                    i == 0 ? 0 : sortedValues[i - 1]);
        }
        Encoder encoder = new Encoder(sortedValues.length, lowBitsFor(valueRange, sortedValues.length),
                sortedValues[sortedValues.length - 1]);
        for (long v : sortedValues) {
            encoder.add(v);
        }
        return encoder.finish();
    }

    /**
     * A section read back from its stream ({@code FingerprintPageSerializer}). Checks that the stream is one a
     * section could have written: exactly {@code count} ones in the high vector, the last at bit {@code highBits
     * - 1}, values strictly increasing and within 63 bits, zero padding; throws {@link IllegalArgumentException}
     * naming the first violation.
     */
    public static EliasFanoSection restore(int count, int lowBits, int highBits, long[] words) {
        checkArgument(count > 0, "count must be positive, but was %s", count);
        checkArgument(lowBits >= 0 && lowBits <= MAX_LOW_BITS, "low bits must be in [0, %s], but were %s", MAX_LOW_BITS, lowBits);
        checkArgument(highBits >= count, "the high vector of %s values has at least %s bits, but had %s", count, count, highBits);
        long streamBits = streamBits(count, lowBits, highBits);
        checkArgument(words.length == wordsFor(streamBits), "a stream of %s bits takes %s words, but had %s", streamBits,
                wordsFor(streamBits), words.length);
        checkArgument(lowBits == 0 || (highBits - count) >>> (63 - lowBits) == 0,
                "the largest value's high part %s does not fit 63 bits beside %s low bits", highBits - count, lowBits);
        int tail = (int) (streamBits & 63);
        checkArgument(tail == 0 || words[words.length - 1] >>> tail == 0, "bits after the end of the stream are not zero");
        EliasFanoSection section = new EliasFanoSection(count, lowBits, highBits, words);
        int ones = 0;
        for (int w = 0; w < wordsFor(highBits); w++) {
            int end = highBits - (w << 6);
            ones += Long.bitCount(end >= 64 ? words[w] : words[w] & ((1L << end) - 1));
        }
        checkArgument(ones == count, "the high vector holds %s values, but the count is %s", ones, count);
        checkArgument(bit(words, highBits - 1), "the high vector does not end with a value's bit");
        long previous = -1;
        Cursor cursor = section.cursor();
        for (int i = 0; i < count; i++) {
            long v = cursor.next();
            checkArgument(v > previous, "values must be strictly increasing, but value %s is %s after %s", i, v, previous);
            previous = v;
        }
        return section;
    }

    /** Whether {@code value} is in the section; reads only the high vector up to its high part and the low parts that share it. */
    public boolean contains(long value) {
        if (value < 0) {
            return false;
        }
        long high = value >>> lowBits;
        int zeros = highBits - count;
        if (high > zeros) {
            return false;
        }
        // The values with high part `high` sit right after the high-th zero of the vector (or at its start).
        int position = high == 0 ? 0 : selectZero((int) high - 1) + 1;
        int index = position - (int) high;
        long low = value & lowMask();
        for (; position < highBits && bit(words, position); position++, index++) {
            long candidate = lowPart(index);
            if (candidate >= low) {
                return candidate == low;
            }
        }
        return false;
    }

    /** Position of the zero with rank {@code rank} (0-based) in the high vector; the vector holds more zeros than {@code rank}. */
    private int selectZero(int rank) {
        int left = rank;
        for (int w = 0; ; w++) {
            long zeros = ~highWord(w);
            if (w == (highBits - 1) >>> 6) {
                int tail = highBits & 63;
                if (tail != 0) {
                    zeros &= (1L << tail) - 1;
                }
            }
            int inWord = Long.bitCount(zeros);
            if (left < inWord) {
                for (int k = 0; k < left; k++) {
                    zeros &= zeros - 1;
                }
                return (w << 6) + Long.numberOfTrailingZeros(zeros);
            }
            left -= inWord;
        }
    }

    /** Word w of the high vector, bits past the vector's end included (callers mask them). */
    private long highWord(int w) {
        return words[w];
    }

    private long lowMask() {
        return lowBits == 0 ? 0 : -1L >>> (64 - lowBits);
    }

    private long lowPart(int index) {
        return lowBits == 0 ? 0 : bits(words, (long) highBits + (long) index * lowBits, lowBits);
    }

    /** The section with {@code value} added ({@code this} if it holds it), encoded for {@code valueRange}. */
    public EliasFanoSection with(long value, long valueRange) {
        checkArgument(value >= 0 && value < valueRange, "value %s is outside [0, %s)", value, valueRange);
        if (contains(value)) {
            return this;
        }
        checkArgument(count < valueRange, "a section of %s values is full for the range %s", count, valueRange);
        long last = Math.max(lastValue(), value);
        Encoder encoder = new Encoder(count + 1, lowBitsFor(valueRange, count + 1), last);
        Cursor cursor = cursor();
        boolean added = false;
        for (int i = 0; i < count; i++) {
            long v = cursor.next();
            if (!added && value < v) {
                encoder.add(value);
                added = true;
            }
            encoder.add(v);
        }
        if (!added) {
            encoder.add(value);
        }
        return encoder.finish();
    }

    /** The largest value. */
    public long lastValue() {
        return ((long) (highBits - count) << lowBits) | lowPart(count - 1);
    }

    /** All values in increasing order (for merging sections and for tests; a lookup does not need it). */
    public long[] values() {
        long[] values = new long[count];
        Cursor cursor = cursor();
        for (int i = 0; i < count; i++) {
            values[i] = cursor.next();
        }
        return values;
    }

    /** Distinct values held: exact. */
    public int count() {
        return count;
    }

    public int lowBits() {
        return lowBits;
    }

    /** Bits of the high vector, {@code H}. */
    public int highBits() {
        return highBits;
    }

    /** Bits of the encoding: {@code H + c l}. */
    public long encodedBits() {
        return streamBits(count, lowBits, highBits);
    }

    /** The stream's words (the array itself: do not modify it). */
    public long[] words() {
        return words;
    }

    /** Bits of the stream of a section with these fields. */
    public static long streamBits(int count, int lowBits, int highBits) {
        return highBits + (long) count * lowBits;
    }

    static int wordsFor(long bits) {
        return (int) ((bits + 63) >>> 6);
    }

    private static boolean bit(long[] words, long position) {
        return (words[(int) (position >>> 6)] >>> position & 1) != 0;
    }

    /** {@code width} (1..63) bits of the stream from {@code position}. */
    private static long bits(long[] words, long position, int width) {
        int word = (int) (position >>> 6);
        int shift = (int) (position & 63);
        long value = words[word] >>> shift;
        if (shift + width > 64) {
            value |= words[word + 1] << (64 - shift);
        }
        return value & (-1L >>> (64 - width));
    }

    private Cursor cursor() {
        return new Cursor();
    }

    /** Reads the values in order: the high vector bit by bit, the low parts field by field. */
    private final class Cursor {
        private int position = -1;
        private int index;

        long next() {
            position++;
            while (!bit(words, position)) {
                long rest = words[position >>> 6] >>> (position & 63);
                position += rest == 0 ? 64 - (position & 63) : Long.numberOfTrailingZeros(rest);
            }
            long high = position - index;
            long value = (high << lowBits) | lowPart(index);
            index++;
            return value;
        }
    }

    /** Writes values given in increasing order into a stream sized for {@code count} values up to {@code last}. */
    private static final class Encoder {
        private final int count;
        private final int lowBits;
        private final int highBits;
        private final long[] words;
        private int index;

        Encoder(int count, int lowBits, long last) {
            long high = (last >>> lowBits) + count;
            checkArgument(streamBits(count, lowBits, (int) Math.min(high, Integer.MAX_VALUE)) <= MAX_STREAM_BITS,
                    "a section of %s values up to %s would exceed %s bits", count, last, MAX_STREAM_BITS);
            this.count = count;
            this.lowBits = lowBits;
            this.highBits = (int) high;
            this.words = new long[wordsFor(streamBits(count, lowBits, highBits))];
        }

        void add(long value) {
            long position = (value >>> lowBits) + index;
            words[(int) (position >>> 6)] |= 1L << position;
            if (lowBits > 0) {
                long start = highBits + (long) index * lowBits;
                long low = value & (-1L >>> (64 - lowBits));
                int word = (int) (start >>> 6);
                int shift = (int) (start & 63);
                words[word] |= low << shift;
                if (shift + lowBits > 64) {
                    words[word + 1] |= low >>> (64 - shift);
                }
            }
            index++;
        }

        EliasFanoSection finish() {
            if (index != count) {
                throw new IllegalStateException("encoded " + index + " of " + count + " values");
            }
            return new EliasFanoSection(count, lowBits, highBits, words);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof EliasFanoSection)) {
            return false;
        }
        EliasFanoSection that = (EliasFanoSection) o;
        return count == that.count && lowBits == that.lowBits && highBits == that.highBits && Arrays.equals(words, that.words);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(words) + count;
    }

    @Override
    public String toString() {
        return "EliasFanoSection{count=" + count + ", lowBits=" + lowBits + ", bits=" + encodedBits() + '}';
    }
}
