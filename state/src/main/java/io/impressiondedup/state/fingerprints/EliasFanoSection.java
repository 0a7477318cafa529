package io.impressiondedup.state.fingerprints;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * The sorted distinct values of one (bucket, band) section of a {@link FingerprintPage}, each in {@code
 * [0, U)}, Elias-Fano coded: immutable; an insert returns a new section, spliced from this one ({@link #with}).
 *
 * <p><b>Encoding</b> (Elias 1974, Fano 1971; Vigna, "Quasi-succinct indices", WSDM 2013). For c values
 * in {@code [0, U)} take {@code l = max(0, floor(log2(U / c)))} low bits. Value i splits into its low
 * part {@code v_i & (2^l - 1)} and its high part {@code h_i = v_i >>> l}. The high parts go into a bit
 * vector in unary: value i sets bit {@code h_i + i}, so the number of zeros before that bit is {@code
 * h_i}. The vector ends at the last value's bit, {@code H = h_(c-1) + c} bits. The low parts follow,
 * {@code l} bits each. Since {@code 2^l > U / 2c}, {@code h_(c-1) < 2c} and the section takes under
 * {@code c (l + 3)} bits, on average {@code log2(U/c) + 1.9 to 2} bits per value.
 *
 * <p><b>Expected size</b> ({@link #expectedBits}). For c values drawn uniformly from {@code [0, U)} the largest is
 * {@code U c / (c + 1)} on average, so {@code H = c + v_max / 2^l} and the stream takes
 *
 * <pre>
 *   E[bits] = c l + c + U c / ((c + 1) 2^l),   per value  l + 1 + (U / c) / 2^l * c / (c + 1)
 * </pre>
 *
 * within one bit per section (the floor of {@code v_max / 2^l}). With {@code r = U / c} in {@code [2^l, 2^(l+1))}
 * a value takes from {@code l + 2} to {@code l + 3} bits, continuous and increasing in r: {@code log2(r) + 1.91} at
 * its least ({@code r = 1.44 2^l}), {@code log2(r) + 2} at a power of two. At U / c = 5,556 (FPP 0.001 with 5
 * buckets consulted) and 140 values a section (a 1 KB page of 4 buckets) it is 12 + 1 + 1.356 x 140/141 = 14.35 bits
 * per value.
 *
 * <p><b>Why Elias-Fano.</b> A lookup finds the values that share its high part with one select over
 * about 2c bits (a scan of {@link Long#bitCount} per word, then a broadword select inside the word) and
 * compares their low parts in place: random access, no decode of the section.
 * Golomb-Rice coding of the gaps would take about 0.4 bit per value less, but can only be read from
 * the start. A library such as sux4j was not used: its structures persist by Java serialization,
 * which is not a stable state format we control.
 *
 * <p><b>In memory</b> one {@code long[]}, bit k of the stream at bit {@code k & 63} of word {@code k
 * >>> 6}: the high vector from bit 0 (so a select scans aligned words), the low parts from bit {@code
 * H}. That bit stream is also the serialized form ({@code FingerprintPageSerializer}), and a {@link
 * FingerprintPage} keeps its sections' streams one after the other in one array: the search, select and insert
 * of this class also run on a stream at a word offset of a larger array. A lookup allocates nothing.
 */
public final class EliasFanoSection {

    /** Low parts wider than this would not leave a high part in a 63-bit value. */
    public static final int MAX_LOW_BITS = 62;
    /** Bits of a section's stream above which it is corrupt data, not a big section (4 MiB). */
    public static final long MAX_STREAM_BITS = 1L << 25;

    private static final long ONES_STEP_8 = 0x0101010101010101L;
    /** Entry {@code rank << 8 | b}: the position of the one with rank {@code rank} in byte b (0 where there is none). */
    private static final byte[] SELECT_IN_BYTE = new byte[8 << 8];

    static {
        for (int b = 0; b < 256; b++) {
            for (int bit = 0, rank = 0; bit < 8; bit++) {
                if ((b >>> bit & 1) != 0) {
                    SELECT_IN_BYTE[rank++ << 8 | b] = (byte) bit;
                }
            }
        }
    }

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

    /**
     * Expected bits of the stream of {@code count} values drawn uniformly from {@code [0, valueRange)} (class comment,
     * "Expected size"); {@code count} may be a mean, e.g. a band's entries over its pages. 0 for no values.
     */
    public static double expectedBits(long valueRange, double count) {
        checkArgument(valueRange > 0, "value range must be positive, but was %s", valueRange);
        checkArgument(count >= 0 && count <= valueRange, "count must be in [0, %s], but was %s", valueRange, count);
        if (count == 0) {
            return 0;
        }
        int lowBits = Math.max(0, 63 - Long.numberOfLeadingZeros((long) (valueRange / count)));
        return count * lowBits + count + Math.scalb(valueRange * count / (count + 1), -lowBits);
    }

    /** A section over a stream its page holds valid (no checks: {@link #restore} checks a stream read from outside). */
    static EliasFanoSection wrap(int count, int lowBits, int highBits, long[] words) {
        return new EliasFanoSection(count, lowBits, highBits, words);
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
        checkArgument(lowBits == 0 || ((long) highBits - count) >>> (63 - lowBits) == 0, // a long shift: the distance exceeds 31
                "the largest value's high part %s does not fit 63 bits beside %s low bits", highBits - count, lowBits);
        int tail = (int) (streamBits & 63);
        checkArgument(tail == 0 || words[words.length - 1] >>> tail == 0, "bits after the end of the stream are not zero");
        int ones = 0;
        for (int w = 0; w < wordsFor(highBits); w++) {
            ones += Long.bitCount(highWord(words, w, highBits));
        }
        checkArgument(ones == count, "the high vector holds %s values, but the count is %s", ones, count);
        checkArgument(bit(words, highBits - 1), "the high vector does not end with a value's bit");
        checkStrictlyIncreasing(lowBits, highBits, words);
        return new EliasFanoSection(count, lowBits, highBits, words);
    }

    /**
     * Word {@code w} of the high vector of {@code highBits} bits, the bits past its end cleared (the shift counts mod 64).
     */
    private static long highWord(long[] words, int w, int highBits) {
        int end = highBits - (w << 6);
        return end >= 64 ? words[w] : words[w] & ((1L << end) - 1);
    }

    /**
     * Throws unless the values are strictly increasing, checked without decoding them: value i's high part is the number of zeros before its
     * one, so the high parts never decrease, and two neighbours share one exactly where their ones are adjacent; only there
     * can a value fail to exceed the one before it, and then its low part must exceed the other's. One pass over the high
     * vector's words, a comparison per adjacent pair (about half of the values at the sizes a page holds).
     */
    private static void checkStrictlyIncreasing(int lowBits, int highBits, long[] words) {
        int ones = 0;
        long carry = 0; // bit 63 of the previous word: a one there and one at bit 0 of this word are adjacent
        for (int w = 0; w < wordsFor(highBits); w++) {
            long word = highWord(words, w, highBits);
            for (long adjacent = word & (word << 1 | carry); adjacent != 0; adjacent &= adjacent - 1) {
                int bit = Long.numberOfTrailingZeros(adjacent);
                int index = ones + Long.bitCount(word & ((1L << bit) - 1)); // the value whose one is at this bit
                long low = lowPart(words, 0, lowBits, highBits, index);
                long lowBefore = lowPart(words, 0, lowBits, highBits, index - 1);
                if (low <= lowBefore) { // not checkArgument: its arguments would be boxed for every pair
                    long high = ((long) w << 6) + bit - index;
                    throw new IllegalArgumentException(String.format("values must be strictly increasing, but value %s is %s after %s",
                            index, high << lowBits | low, high << lowBits | lowBefore));
                }
            }
            ones += Long.bitCount(word);
            carry = word >>> 63;
        }
    }

    /** Whether {@code value} is in the section; reads only the high vector up to its high part and the low parts that share it. */
    public boolean contains(long value) {
        return contains(words, 0, count, lowBits, highBits, value);
    }

    /**
     * {@link #contains} on a stream stored from word {@code base} of {@code words} (a page keeps its sections'
     * streams in one array).
     */
    static boolean contains(long[] words, int base, int count, int lowBits, int highBits, long value) {
        return value >= 0 && search(words, base, count, lowBits, highBits, value) < 0;
    }

    /**
     * Where {@code value} (not negative) is in the stream from word {@code base}: {@code -(index) - 1} if it is
     * there, else the index it would take (the number of smaller values). The values with high part {@code h}
     * sit right after the h-th zero of the high vector (or at its start), so a search selects that zero and
     * compares only their low parts; a high part beyond the last value's returns before reading any word.
     */
    static int search(long[] words, int base, int count, int lowBits, int highBits, long value) {
        long high = value >>> lowBits;
        int zeros = highBits - count;
        if (high > zeros) {
            return count;
        }
        int position = high == 0 ? 0 : selectZero(words, base, highBits, (int) high - 1) + 1;
        int index = position - (int) high;
        long low = value & lowMask(lowBits);
        long first = (long) base << 6;
        for (; position < highBits && bit(words, first + position); position++, index++) {
            long candidate = lowPart(words, base, lowBits, highBits, index);
            if (candidate >= low) {
                return candidate == low ? -index - 1 : index;
            }
        }
        return index;
    }

    /**
     * Position of the zero with rank {@code rank} (0-based) in the high vector from word {@code base}; the vector
     * holds more zeros than {@code rank}. Skips whole words by their zero count ({@link Long#bitCount}), then
     * selects within the word that holds it ({@link #selectInWord}).
     */
    static int selectZero(long[] words, int base, int highBits, int rank) {
        int left = rank;
        int last = (highBits - 1) >>> 6;
        for (int w = 0; ; w++) {
            long zeros = ~words[base + w];
            if (w == last && (highBits & 63) != 0) {
                zeros &= (1L << highBits) - 1; // the shift counts mod 64: bits past the vector's end are not zeros of it
            }
            int inWord = Long.bitCount(zeros);
            if (left < inWord) {
                return (w << 6) + selectInWord(zeros, left);
            }
            left -= inWord;
        }
    }

    /**
     * Position of the one with rank {@code rank} (0-based) in {@code word}, which holds more ones than {@code rank},
     * without a loop over its bits (Vigna, "Broadword implementation of rank/select queries", 2008): the bytes'
     * running counts of ones in one multiply, the byte that holds the one counted by comparing all eight counts
     * with the rank at once, the one within that byte from a table.
     */
    static int selectInWord(long word, int rank) {
        long counts = word - (word >>> 1 & 0x5555555555555555L);
        counts = (counts & 0x3333333333333333L) + (counts >>> 2 & 0x3333333333333333L);
        counts = (counts + (counts >>> 4) & 0x0F0F0F0F0F0F0F0FL) * ONES_STEP_8; // byte i: ones in bytes 0..i
        long atMost = ((rank * ONES_STEP_8 | 0x8080808080808080L) - counts) & 0x8080808080808080L; // counts <= rank
        int place = Long.bitCount(atMost) << 3;
        int rankInByte = rank - (int) ((counts << 8) >>> place & 0xFF);
        return place + SELECT_IN_BYTE[rankInByte << 8 | (int) (word >>> place & 0xFF)];
    }

    private static long lowMask(int lowBits) {
        return lowBits == 0 ? 0 : -1L >>> (64 - lowBits);
    }

    private long lowPart(int index) {
        return lowPart(words, 0, lowBits, highBits, index);
    }

    private static long lowPart(long[] words, int base, int lowBits, int highBits, int index) {
        return lowBits == 0 ? 0 : bits(words, ((long) base << 6) + highBits + (long) index * lowBits, lowBits);
    }

    /** The section with {@code value} added ({@code this} if it holds it), encoded for {@code valueRange}. */
    public EliasFanoSection with(long value, long valueRange) {
        EliasFanoSection inserted = inserted(words, 0, count, lowBits, highBits, value, valueRange);
        return inserted == null ? this : inserted;
    }

    /**
     * The section of the stream from word {@code base} with {@code value} added, or {@code null} if it holds it:
     * the same stream {@link #of} would encode for the values and {@code valueRange}.
     *
     * <p>While {@code l = lowBitsFor(valueRange, count + 1)} equals the stream's, the new stream is spliced from
     * the old one: with the value at index i and high part h, its one goes to bit {@code h + i} of the high
     * vector, whose bits below stay and whose bits from there move up one (every value after it gains one
     * predecessor); its low part goes to slot i, the other low parts copied around it as two blocks of bits.
     * Every value before it keeps its bit, so the copy is word by word, without decoding. When l shrinks (the
     * count crossed {@code U / 2^l}, a few times in a section's life) every value changes its split, and the
     * section is decoded and encoded again.
     */
    static EliasFanoSection inserted(long[] words, int base, int count, int lowBits, int highBits, long value,
            long valueRange) {
        if (value < 0 || value >= valueRange) {
            throw new IllegalArgumentException("value " + value + " is outside [0, " + valueRange + ")");
        }
        int index = search(words, base, count, lowBits, highBits, value);
        if (index < 0) {
            return null;
        }
        if (count >= valueRange) {
            throw new IllegalArgumentException("a section of " + count + " values is full for the range " + valueRange);
        }
        int newLowBits = lowBitsFor(valueRange, count + 1);
        if (newLowBits != lowBits) {
            return reencoded(words, base, count, lowBits, highBits, value, index, newLowBits);
        }
        long position = (value >>> lowBits) + index;
        long newHighBits = Math.max(highBits, position) + 1;
        if (exceedsMaxStreamBits(count + 1, lowBits, newHighBits)) {
            throw tooLarge(count + 1, Math.max(value, ((long) (highBits - count) << lowBits)
                    | lowPart(words, base, lowBits, highBits, count - 1)));
        }
        long[] out = new long[wordsFor(streamBits(count + 1, lowBits, (int) newHighBits))];
        long first = (long) base << 6;
        long below = Math.min(position, highBits);
        copyBits(words, first, out, 0, below);
        out[(int) (position >>> 6)] |= 1L << position;
        copyBits(words, first + below, out, position + 1, highBits - below);
        long lowsBefore = (long) index * lowBits;
        copyBits(words, first + highBits, out, newHighBits, lowsBefore);
        if (lowBits > 0) {
            writeBits(out, newHighBits + lowsBefore, value & lowMask(lowBits), lowBits);
        }
        copyBits(words, first + highBits + lowsBefore, out, newHighBits + lowsBefore + lowBits, (long) count * lowBits - lowsBefore);
        return new EliasFanoSection(count + 1, lowBits, (int) newHighBits, out);
    }

    /** Decodes the stream's values, {@code value} at {@code index}, and encodes them with {@code newLowBits}. */
    private static EliasFanoSection reencoded(long[] words, int base, int count, int lowBits, int highBits, long value,
            int index, int newLowBits) {
        long[] values = new long[count + 1];
        long first = (long) base << 6;
        long position = -1;
        for (int i = 0, j = 0; i < count; i++, j++) {
            position = nextOne(words, first, position + 1);
            if (j == index) {
                values[j++] = value;
            }
            values[j] = ((position - i) << lowBits) | lowPart(words, base, lowBits, highBits, i);
        }
        if (index == count) {
            values[count] = value;
        }
        Encoder encoder = new Encoder(count + 1, newLowBits, values[count]);
        for (long v : values) {
            encoder.add(v);
        }
        return encoder.finish();
    }

    /** Position (relative to {@code first}) of the first one bit at or after {@code from}; the stream holds one. */
    private static long nextOne(long[] words, long first, long from) {
        long position = first + from;
        long rest = words[(int) (position >>> 6)] >>> position;
        while (rest == 0) {
            position = (position | 63) + 1;
            rest = words[(int) (position >>> 6)];
        }
        return position + Long.numberOfTrailingZeros(rest) - first;
    }

    /** ORs {@code length} bits of {@code from} starting at bit {@code fromBit} into {@code to} at bit {@code toBit}, a word at a time. */
    static void copyBits(long[] from, long fromBit, long[] to, long toBit, long length) {
        for (; length >= 64; length -= 64, fromBit += 64, toBit += 64) {
            writeBits(to, toBit, bits64(from, fromBit), 64);
        }
        if (length > 0) {
            writeBits(to, toBit, bits(from, fromBit, (int) length), (int) length);
        }
    }

    /** The 64 bits of the stream from {@code position}. */
    private static long bits64(long[] words, long position) {
        int word = (int) (position >>> 6);
        int shift = (int) (position & 63);
        return shift == 0 ? words[word] : words[word] >>> shift | words[word + 1] << (64 - shift);
    }

    /** ORs the {@code width} (1..64) low bits of {@code value} (no bits above them) into the stream at {@code position}. */
    private static void writeBits(long[] words, long position, long value, int width) {
        int word = (int) (position >>> 6);
        int shift = (int) (position & 63);
        words[word] |= value << shift;
        if (shift + width > 64) {
            words[word + 1] |= value >>> (64 - shift);
        }
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

    /**
     * Whether a section of {@code count} values in {@code [0, valueRange)} (0: none yet) can take one more whatever the
     * value, within {@link #MAX_STREAM_BITS}: its longest stream then, the high vector ending at the largest high part
     * plus c + 1 ({@code ((U - 1) >>> l) + c + 1} bits) and c + 1 low parts of l bits, with l for c + 1 values, fits. A
     * full section ({@code count >= valueRange}) holds every value, so an insert finds its value there and adds nothing.
     */
    public static boolean fitsOneMore(int count, long valueRange) {
        if (count >= valueRange) {
            return true;
        }
        int lowBits = lowBitsFor(valueRange, count + 1);
        long highBits = ((valueRange - 1) >>> lowBits) + count + 1;
        return highBits + (long) (count + 1) * lowBits <= MAX_STREAM_BITS;
    }

    /** Whether a stream of these fields exceeds {@link #MAX_STREAM_BITS} (checked without boxing: it runs on every insert). */
    private static boolean exceedsMaxStreamBits(int count, int lowBits, long highBits) {
        return streamBits(count, lowBits, (int) Math.min(highBits, Integer.MAX_VALUE)) > MAX_STREAM_BITS;
    }

    private static IllegalArgumentException tooLarge(int count, long last) {
        return new IllegalArgumentException("a section of " + count + " values up to " + last + " would exceed " + MAX_STREAM_BITS + " bits");
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
            if (exceedsMaxStreamBits(count, lowBits, high)) {
                throw tooLarge(count, last);
            }
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
