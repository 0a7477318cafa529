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
 * <p>Sections are immutable, so {@link #copy()} shares them and a lookup allocates nothing. Three exactly
 * sized arrays; a page of the plan holds one section per live bucket and band, about five.
 */
public final class FingerprintPage {

    private static final long[] NO_BUCKETS = new long[0];
    private static final byte[] NO_BANDS = new byte[0];
    private static final EliasFanoSection[] NO_SECTIONS = new EliasFanoSection[0];

    private long[] buckets;
    private byte[] bands;
    private EliasFanoSection[] sections;

    public FingerprintPage() {
        this(NO_BUCKETS, NO_BANDS, NO_SECTIONS);
    }

    private FingerprintPage(long[] buckets, byte[] bands, EliasFanoSection[] sections) {
        this.buckets = buckets;
        this.bands = bands;
        this.sections = sections;
    }

    /** Whether any section of a bucket in {@code [firstBucket, lastBucket]} holds the value of {@code h2} in its range. */
    public boolean mightContain(long firstBucket, long lastBucket, long h2, ValueRanges ranges) {
        for (int i = 0; i < buckets.length; i++) {
            long bucket = buckets[i];
            if (bucket > lastBucket) {
                return false;
            }
            if (bucket >= firstBucket
                    && sections[i].contains(FingerprintStoreSizing.scale(h2, ranges.valueRange(bucket, bands[i])))) {
                return true;
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
        if (index >= 0) {
            EliasFanoSection before = sections[index];
            EliasFanoSection after = before.with(value, valueRange);
            sections[index] = after;
            return after != before;
        }
        add(-index - 1, bucket, band, EliasFanoSection.of(valueRange, value));
        return true;
    }

    /** Sets (or replaces) the section of {@code bucket}'s band {@code band}: for the serializer and for merging pages. */
    public void putSection(long bucket, int band, EliasFanoSection section) {
        checkBand(band);
        Objects.requireNonNull(section, "section");
        int index = indexOf(bucket, band);
        if (index >= 0) {
            sections[index] = section;
        } else {
            add(-index - 1, bucket, band, section);
        }
    }

    private static void checkBand(int band) {
        checkArgument(band >= 0 && band <= FingerprintStoreSizing.MAX_BAND, "band must be in [0, %s], but was %s",
                FingerprintStoreSizing.MAX_BAND, band);
    }

    /** Index of the section, or {@code -(insertion point) - 1}. */
    private int indexOf(long bucket, int band) {
        int low = 0;
        int high = buckets.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int order = buckets[mid] != bucket ? Long.compare(buckets[mid], bucket) : Integer.compare(bands[mid], band);
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

    private void add(int at, long bucket, int band, EliasFanoSection section) {
        int size = buckets.length;
        long[] newBuckets = new long[size + 1];
        byte[] newBands = new byte[size + 1];
        EliasFanoSection[] newSections = new EliasFanoSection[size + 1];
        System.arraycopy(buckets, 0, newBuckets, 0, at);
        System.arraycopy(bands, 0, newBands, 0, at);
        System.arraycopy(sections, 0, newSections, 0, at);
        newBuckets[at] = bucket;
        newBands[at] = (byte) band;
        newSections[at] = section;
        System.arraycopy(buckets, at, newBuckets, at + 1, size - at);
        System.arraycopy(bands, at, newBands, at + 1, size - at);
        System.arraycopy(sections, at, newSections, at + 1, size - at);
        buckets = newBuckets;
        bands = newBands;
        sections = newSections;
    }

    /** Distinct values of {@code bucket} in this page, all bands: exact. */
    public long count(long bucket) {
        long count = 0;
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] == bucket) {
                count += sections[i].count();
            }
        }
        return count;
    }

    /** Distinct values of {@code bucket}'s band {@code band} in this page: exact. */
    public int count(long bucket, int band) {
        int index = indexOf(bucket, band);
        return index >= 0 ? sections[index].count() : 0;
    }

    /** The section of {@code bucket}'s band {@code band}, or {@code null}. */
    public EliasFanoSection section(long bucket, int band) {
        int index = indexOf(bucket, band);
        return index >= 0 ? sections[index] : null;
    }

    /** Drops every section of {@code bucket} (its expiry); returns whether any was dropped. */
    public boolean removeBucket(long bucket) {
        int from = 0;
        while (from < buckets.length && buckets[from] < bucket) {
            from++;
        }
        int to = from;
        while (to < buckets.length && buckets[to] == bucket) {
            to++;
        }
        if (to == from) {
            return false;
        }
        int kept = buckets.length - (to - from);
        long[] newBuckets = new long[kept];
        byte[] newBands = new byte[kept];
        EliasFanoSection[] newSections = new EliasFanoSection[kept];
        System.arraycopy(buckets, 0, newBuckets, 0, from);
        System.arraycopy(bands, 0, newBands, 0, from);
        System.arraycopy(sections, 0, newSections, 0, from);
        System.arraycopy(buckets, to, newBuckets, from, buckets.length - to);
        System.arraycopy(bands, to, newBands, from, buckets.length - to);
        System.arraycopy(sections, to, newSections, from, buckets.length - to);
        buckets = newBuckets;
        bands = newBands;
        sections = newSections;
        return true;
    }

    public int sectionCount() {
        return sections.length;
    }

    public boolean isEmpty() {
        return sections.length == 0;
    }

    public long bucketAt(int index) {
        return buckets[index];
    }

    public int bandAt(int index) {
        return bands[index];
    }

    public EliasFanoSection sectionAt(int index) {
        return sections[index];
    }

    /** Bytes of this page in the current serialized format ({@link FingerprintPageSerializer}). */
    public long encodedBytes() {
        return FingerprintPageSerializer.serializedSize(this);
    }

    /** A page that shares the (immutable) sections and owns its lists. */
    public FingerprintPage copy() {
        return new FingerprintPage(buckets.clone(), bands.clone(), sections.clone());
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
        return Arrays.equals(buckets, that.buckets) && Arrays.equals(bands, that.bands) && Arrays.equals(sections, that.sections);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(buckets) + Arrays.hashCode(sections);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FingerprintPage{");
        for (int i = 0; i < sections.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(buckets[i]).append('/').append(bands[i]).append(':').append(sections[i].count());
        }
        return sb.append('}').toString();
    }
}
