package io.impressiondedup.state.fingerprints;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.util.Arrays;
import java.util.Objects;

/**
 * One page of a shard's fingerprint store, the value of one state entry: a list of {@link EliasFanoSection}s,
 * each tagged with its (bucket, band), in increasing (bucket, band) order.
 *
 * <p><b>Why one page for every bucket.</b> A record's page is chosen from its hash alone ({@link
 * FingerprintStoreSizing#pageOf}), the same in every bucket and band, so one read answers a lookup over all
 * the buckets it consults, and a unique record rewrites one section of that page. A section's value range U
 * is not stored here: it belongs to the bucket ({@link ValueRanges}), and a lookup maps its hash into each
 * section's range ({@link FingerprintStoreSizing#scale}).
 *
 * <p><b>In memory: one {@code long[]}.</b> A directory of {@value #ENTRY_WORDS} words per section (its bucket;
 * its band, low bits, count and high-vector bits packed in one word; the word where its stream starts), then
 * the sections' streams ({@link EliasFanoSection}) one after the other, each whole words. A lookup on the heap
 * is bound by cache misses, not by arithmetic: a graph of a section object and an array per section costs two
 * dependent misses a section, where the flat page costs its directory's line and then, for each section
 * consulted, the lines of its stream, all addresses known at once. A lookup allocates nothing; an insert
 * splices its section's stream ({@link EliasFanoSection#inserted}) and moves the streams after it; the array
 * keeps a few spare words so that a page does not reallocate at every insert.
 */
public final class FingerprintPage {

    /** Directory words per section: bucket, shape, stream start. */
    private static final int ENTRY_WORDS = 3;
    private static final int COUNT_BITS = 26;
    private static final int HIGH_BITS_SHIFT = COUNT_BITS;
    private static final int LOW_BITS_SHIFT = 2 * COUNT_BITS;
    private static final int BAND_SHIFT = LOW_BITS_SHIFT + 6;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    /** Spare words added when the array grows (and at most 1/16 of the page more). */
    private static final int SPARE_WORDS = 8;
    private static final long[] EMPTY = new long[0];

    private long[] data;
    private int sections;
    /** Words of {@link #data} in use; the rest are spare. */
    private int used;

    public FingerprintPage() {
        this(EMPTY, 0, 0);
    }

    private FingerprintPage(long[] data, int sections, int used) {
        this.data = data;
        this.sections = sections;
        this.used = used;
    }

    /** Whether any section of a bucket in {@code [firstBucket, lastBucket]} holds the value of {@code h2} in its range. */
    public boolean mightContain(long firstBucket, long lastBucket, long h2, ValueRanges ranges) {
        long[] data = this.data;
        for (int i = 0, entry = 0; i < sections; i++, entry += ENTRY_WORDS) {
            long bucket = data[entry];
            if (bucket > lastBucket) {
                return false;
            }
            if (bucket >= firstBucket) {
                long shape = data[entry + 1];
                long value = FingerprintStoreSizing.scale(h2, ranges.valueRange(bucket, bandOf(shape)));
                if (EliasFanoSection.contains(data, (int) data[entry + 2], countOf(shape), lowBitsOf(shape), highBitsOf(shape), value)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether any section of {@code bucket} holds the value of {@code h2}. */
    public boolean mightContain(long bucket, long h2, ValueRanges ranges) {
        return mightContain(bucket, bucket, h2, ranges);
    }

    /**
     * Adds the value of {@code h2} to {@code bucket}'s band {@code band}, creating the section; returns whether
     * it was new there (a value already in the section leaves the page as it was).
     */
    public boolean insert(long bucket, int band, long h2, ValueRanges ranges) {
        long range = ranges.valueRange(bucket, band);
        return insertValue(bucket, band, FingerprintStoreSizing.scale(h2, range), range);
    }

    /** Adds {@code value}, in {@code [0, valueRange)}, to {@code bucket}'s band {@code band}; returns whether it was new. */
    public boolean insertValue(long bucket, int band, long value, long valueRange) {
        checkBand(band);
        int index = indexOf(bucket, band);
        if (index < 0) {
            add(-index - 1, bucket, band, EliasFanoSection.of(valueRange, value));
            return true;
        }
        long shape = data[index * ENTRY_WORDS + 1];
        EliasFanoSection after = EliasFanoSection.inserted(data, start(index), countOf(shape), lowBitsOf(shape),
                highBitsOf(shape), value, valueRange);
        if (after == null) {
            return false;
        }
        replace(index, after);
        return true;
    }

    /** Sets (or replaces) the section of {@code bucket}'s band {@code band}: for the serializer and for merging pages. */
    public void putSection(long bucket, int band, EliasFanoSection section) {
        checkBand(band);
        Objects.requireNonNull(section, "section");
        checkArgument(section.encodedBits() <= EliasFanoSection.MAX_STREAM_BITS, "a section of %s bits exceeds %s",
                section.encodedBits(), EliasFanoSection.MAX_STREAM_BITS);
        int index = indexOf(bucket, band);
        if (index >= 0) {
            replace(index, section);
        } else {
            add(-index - 1, bucket, band, section);
        }
    }

    /**
     * The page of {@code n} sections given in strictly increasing (bucket, band) order (the serializer's, which checks the
     * order): laid out in one array at once, where {@link #putSection} one by one would copy it at each section.
     */
    static FingerprintPage ofOrderedSections(long[] buckets, int[] bands, EliasFanoSection[] sectionsInOrder, int n) {
        int used = n * ENTRY_WORDS;
        for (int i = 0; i < n; i++) {
            checkBand(bands[i]);
            checkArgument(i == 0 || buckets[i] > buckets[i - 1] || (buckets[i] == buckets[i - 1] && bands[i] > bands[i - 1]),
                    "sections out of (bucket, band) order at %s", i);
            used += sectionsInOrder[i].words().length;
        }
        long[] data = new long[used];
        int at = n * ENTRY_WORDS;
        for (int i = 0; i < n; i++) {
            long[] stream = sectionsInOrder[i].words();
            data[i * ENTRY_WORDS] = buckets[i];
            data[i * ENTRY_WORDS + 1] = shape(bands[i], sectionsInOrder[i]);
            data[i * ENTRY_WORDS + 2] = at;
            System.arraycopy(stream, 0, data, at, stream.length);
            at += stream.length;
        }
        return new FingerprintPage(data, n, used);
    }

    /**
     * Whether {@code bucket}'s section of band {@code band} can take one more value of range {@code valueRange} whatever
     * the value ({@link EliasFanoSection#fitsOneMore}): the largest section a page may hold is bounded, and an insert
     * past it would fail, so the caller sends such an insert to the overflow band instead.
     */
    public boolean fitsOneMore(long bucket, int band, long valueRange) {
        checkBand(band);
        int index = indexOf(bucket, band);
        return EliasFanoSection.fitsOneMore(index >= 0 ? countAt(index) : 0, valueRange);
    }

    private static void checkBand(int band) {
        if (band < 0 || band > FingerprintStoreSizing.OVERFLOW_BAND) {
            throw new IllegalArgumentException("band must be in [0, " + FingerprintStoreSizing.OVERFLOW_BAND + "], but was " + band);
        }
    }

    /** Index of the section, or {@code -(insertion point) - 1}. */
    private int indexOf(long bucket, int band) {
        int low = 0;
        int high = sections - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long midBucket = data[mid * ENTRY_WORDS];
            int order = midBucket != bucket ? Long.compare(midBucket, bucket) : Integer.compare(bandAt(mid), band);
            if (order < 0) {
                low = mid + 1;
            } else if (order > 0) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -low - 1;
    }

    private static long shape(int band, EliasFanoSection section) {
        return (long) band << BAND_SHIFT | (long) section.lowBits() << LOW_BITS_SHIFT
                | (long) section.highBits() << HIGH_BITS_SHIFT | section.count();
    }

    private static int countOf(long shape) {
        return (int) (shape & COUNT_MASK);
    }

    private static int highBitsOf(long shape) {
        return (int) (shape >>> HIGH_BITS_SHIFT & COUNT_MASK);
    }

    private static int lowBitsOf(long shape) {
        return (int) (shape >>> LOW_BITS_SHIFT & 63);
    }

    private static int bandOf(long shape) {
        return (int) (shape >>> BAND_SHIFT);
    }

    /** The word where section {@code index}'s stream starts. */
    private int start(int index) {
        return (int) data[index * ENTRY_WORDS + 2];
    }

    /** The word after section {@code index}'s stream. */
    private int end(int index) {
        return index + 1 < sections ? start(index + 1) : used;
    }

    /** Puts {@code section}'s stream in place of section {@code index}'s, moving the streams after it. */
    private void replace(int index, EliasFanoSection section) {
        int start = start(index);
        int end = end(index);
        long[] stream = section.words();
        int shift = stream.length - (end - start);
        if (shift > 0 && used + shift > data.length) {
            data = Arrays.copyOf(data, grown(used + shift));
        }
        System.arraycopy(data, end, data, end + shift, used - end);
        if (shift < 0) {
            Arrays.fill(data, used + shift, used, 0);
        }
        used += shift;
        System.arraycopy(stream, 0, data, start, stream.length);
        data[index * ENTRY_WORDS + 1] = shape(bandAt(index), section);
        for (int i = index + 1; i < sections; i++) {
            data[i * ENTRY_WORDS + 2] += shift;
        }
    }

    private static int grown(int words) {
        return words + Math.max(SPARE_WORDS, words >>> 4);
    }

    /** Inserts section {@code at} with its directory entry: every stream moves by the entry, those after it by the stream too. */
    private void add(int at, long bucket, int band, EliasFanoSection section) {
        long[] stream = section.words();
        int streamsStart = sections * ENTRY_WORDS;
        int streamAt = at < sections ? start(at) : used;
        long[] grown = new long[grown(used + ENTRY_WORDS + stream.length)];
        System.arraycopy(data, 0, grown, 0, at * ENTRY_WORDS);
        grown[at * ENTRY_WORDS] = bucket;
        grown[at * ENTRY_WORDS + 1] = shape(band, section);
        grown[at * ENTRY_WORDS + 2] = streamAt + ENTRY_WORDS;
        System.arraycopy(data, at * ENTRY_WORDS, grown, (at + 1) * ENTRY_WORDS, streamsStart - at * ENTRY_WORDS);
        System.arraycopy(data, streamsStart, grown, streamsStart + ENTRY_WORDS, streamAt - streamsStart);
        System.arraycopy(stream, 0, grown, streamAt + ENTRY_WORDS, stream.length);
        System.arraycopy(data, streamAt, grown, streamAt + ENTRY_WORDS + stream.length, used - streamAt);
        data = grown;
        sections++;
        used += ENTRY_WORDS + stream.length;
        for (int i = 0; i < sections; i++) {
            if (i != at) {
                data[i * ENTRY_WORDS + 2] += i < at ? ENTRY_WORDS : ENTRY_WORDS + stream.length;
            }
        }
    }

    /**
     * Heap bytes of this page: the object (24 B) and its array (16 B header and every word, spare ones included). What a
     * page cache weighs it at.
     */
    public long heapBytes() {
        return 24 + 16 + 8L * data.length;
    }

    /** Distinct values of {@code bucket} in this page, all bands: exact. */
    public long count(long bucket) {
        long count = 0;
        for (int i = 0; i < sections; i++) {
            if (bucketAt(i) == bucket) {
                count += countAt(i);
            }
        }
        return count;
    }

    /** Distinct values of {@code bucket}'s band {@code band} in this page: exact. */
    public int count(long bucket, int band) {
        int index = indexOf(bucket, band);
        return index >= 0 ? countAt(index) : 0;
    }

    /** The section of {@code bucket}'s band {@code band} (a copy), or {@code null}. */
    public EliasFanoSection section(long bucket, int band) {
        int index = indexOf(bucket, band);
        return index >= 0 ? sectionAt(index) : null;
    }

    /** Drops every section of {@code bucket} (its expiry); returns whether any was dropped. */
    public boolean removeBucket(long bucket) {
        int from = 0;
        while (from < sections && bucketAt(from) < bucket) {
            from++;
        }
        int to = from;
        while (to < sections && bucketAt(to) == bucket) {
            to++;
        }
        if (to == from) {
            return false;
        }
        int dropped = to - from;
        int streamsFrom = start(from);
        int streamsTo = end(to - 1);
        int streamWords = streamsTo - streamsFrom;
        int streamsStart = sections * ENTRY_WORDS;
        long[] kept = new long[used - dropped * ENTRY_WORDS - streamWords];
        System.arraycopy(data, 0, kept, 0, from * ENTRY_WORDS);
        System.arraycopy(data, to * ENTRY_WORDS, kept, from * ENTRY_WORDS, streamsStart - to * ENTRY_WORDS);
        int keptStreamsStart = streamsStart - dropped * ENTRY_WORDS;
        System.arraycopy(data, streamsStart, kept, keptStreamsStart, streamsFrom - streamsStart);
        System.arraycopy(data, streamsTo, kept, keptStreamsStart + streamsFrom - streamsStart, used - streamsTo);
        sections -= dropped;
        used = kept.length;
        data = kept;
        for (int i = 0; i < sections; i++) {
            data[i * ENTRY_WORDS + 2] -= i < from ? dropped * ENTRY_WORDS : dropped * ENTRY_WORDS + streamWords;
        }
        return true;
    }

    public int sectionCount() {
        return sections;
    }

    public boolean isEmpty() {
        return sections == 0;
    }

    public long bucketAt(int index) {
        checkIndex(index);
        return data[index * ENTRY_WORDS];
    }

    public int bandAt(int index) {
        checkIndex(index);
        return bandOf(data[index * ENTRY_WORDS + 1]);
    }

    /** Section {@code index} (a copy of its stream). */
    public EliasFanoSection sectionAt(int index) {
        long shape = data[index * ENTRY_WORDS + 1];
        return EliasFanoSection.wrap(countOf(shape), lowBitsOf(shape), highBitsOf(shape), Arrays.copyOfRange(data, start(index), end(index)));
    }

    /** Distinct values of section {@code index}. */
    int countAt(int index) {
        checkIndex(index);
        return countOf(data[index * ENTRY_WORDS + 1]);
    }

    /** Low bits of section {@code index}. */
    int lowBitsAt(int index) {
        checkIndex(index);
        return lowBitsOf(data[index * ENTRY_WORDS + 1]);
    }

    /** Bits of section {@code index}'s stream. */
    long encodedBitsAt(int index) {
        checkIndex(index);
        long shape = data[index * ENTRY_WORDS + 1];
        return EliasFanoSection.streamBits(countOf(shape), lowBitsOf(shape), highBitsOf(shape));
    }

    /** Word {@code word} of section {@code index}'s stream. */
    long streamWordAt(int index, int word) {
        checkIndex(index);
        return data[start(index) + word];
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= sections) {
            throw new IndexOutOfBoundsException("section " + index + " of " + sections);
        }
    }

    /** Bytes of this page in the current serialized format ({@link FingerprintPageSerializer}). */
    public long encodedBytes() {
        return FingerprintPageSerializer.serializedSize(this);
    }

    /** A page with its own array, without spare words. */
    public FingerprintPage copy() {
        return new FingerprintPage(Arrays.copyOf(data, used), sections, used);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FingerprintPage)) {
            return false;
        }
        FingerprintPage that = (FingerprintPage) o;
        return sections == that.sections && Arrays.equals(data, 0, used, that.data, 0, that.used);
    }

    /** Over the used words: the layout is a function of the sections, so equal pages hash alike. */
    @Override
    public int hashCode() {
        int hash = sections;
        for (int i = 0; i < used; i++) {
            hash = 31 * hash + Long.hashCode(data[i]);
        }
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FingerprintPage{");
        for (int i = 0; i < sections; i++) {
            sb.append(i == 0 ? "" : ", ").append(bucketAt(i)).append('/').append(bandAt(i)).append(':').append(countAt(i));
        }
        return sb.append('}').toString();
    }
}
