package io.impressiondedup.state;

import java.util.Arrays;
import java.util.Objects;

/**
 * The filters of one shard, one per live time bucket, ordered by bucket id: the metadata half of the
 * dedup state (the stored impressions are page-wise: Bloom bits by {@code PageAddress}, fingerprints in
 * {@code FingerprintPage}s). Each bucket is in the {@link StateFormat} it was created in, so a shard may hold
 * both while a change of {@code --state-format} works through the retention.
 *
 * <p>A shard holds a handful of buckets (retention / bucket size + 2 with records ahead of the
 * watermark), so this is a pair of sorted arrays rather than a map: lookups and range scans per
 * record allocate nothing.
 */
public final class BucketFilters {

    private long[] buckets;
    private BucketFilter[] filters;
    private int size;

    public BucketFilters() {
        this(new long[4], new BucketFilter[4], 0);
    }

    private BucketFilters(long[] buckets, BucketFilter[] filters, int size) {
        this.buckets = buckets;
        this.filters = filters;
        this.size = size;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Bucket id at position {@code index} (ascending). */
    public long bucketAt(int index) {
        checkIndex(index);
        return buckets[index];
    }

    public BucketFilter filterAt(int index) {
        checkIndex(index);
        return filters[index];
    }

    /** The filter of {@code bucket}, or {@code null}. */
    public BucketFilter get(long bucket) {
        int index = firstIndexAtOrAfter(bucket);
        return index < size && buckets[index] == bucket ? filters[index] : null;
    }

    /**
     * First position whose bucket is {@code >= bucket} (may be {@link #size()}). A linear scan: a
     * shard holds three to five buckets, and this runs twice per record.
     */
    public int firstIndexAtOrAfter(long bucket) {
        int i = 0;
        while (i < size && buckets[i] < bucket) {
            i++;
        }
        return i;
    }

    public void put(long bucket, BucketFilter filter) {
        Objects.requireNonNull(filter, "filter");
        int index = Arrays.binarySearch(buckets, 0, size, bucket);
        if (index >= 0) {
            filters[index] = filter;
            return;
        }
        int insertAt = -index - 1;
        if (size == buckets.length) {
            buckets = Arrays.copyOf(buckets, size * 2);
            filters = Arrays.copyOf(filters, size * 2);
        }
        System.arraycopy(buckets, insertAt, buckets, insertAt + 1, size - insertAt);
        System.arraycopy(filters, insertAt, filters, insertAt + 1, size - insertAt);
        buckets[insertAt] = bucket;
        filters[insertAt] = filter;
        size++;
    }

    /** Removes {@code bucket}, returning its filter or {@code null}. */
    public BucketFilter remove(long bucket) {
        int index = Arrays.binarySearch(buckets, 0, size, bucket);
        if (index < 0) {
            return null;
        }
        BucketFilter removed = filters[index];
        System.arraycopy(buckets, index + 1, buckets, index, size - index - 1);
        System.arraycopy(filters, index + 1, filters, index, size - index - 1);
        size--;
        filters[size] = null;
        return removed;
    }

    /** Bytes of all Bloom filters' layers beyond their first: what the shard state cap bounds. */
    public long growthBytes() {
        long total = 0;
        for (int i = 0; i < size; i++) {
            total += filters[i].growthBytes();
        }
        return total;
    }

    /** Whether any bucket is in {@code format}. */
    public boolean holds(StateFormat format) {
        for (int i = 0; i < size; i++) {
            if (filters[i].format() == format) {
                return true;
            }
        }
        return false;
    }

    public BucketFilters copy() {
        BucketFilter[] copies = new BucketFilter[Math.max(4, size)];
        for (int i = 0; i < size; i++) {
            copies[i] = filters[i].copy();
        }
        return new BucketFilters(Arrays.copyOf(buckets, copies.length), copies, size);
    }

    /** Per-record path: a plain check, no varargs message array. */
    private void checkIndex(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " out of [0, " + size + ")");
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BucketFilters)) {
            return false;
        }
        BucketFilters that = (BucketFilters) o;
        return size == that.size
                && Arrays.equals(buckets, 0, size, that.buckets, 0, size)
                && Arrays.equals(filters, 0, size, that.filters, 0, size);
    }

    @Override
    public int hashCode() {
        int result = size;
        for (int i = 0; i < size; i++) {
            result = 31 * result + Long.hashCode(buckets[i]);
            result = 31 * result + filters[i].hashCode();
        }
        return result;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("BucketFilters{");
        for (int i = 0; i < size; i++) {
            sb.append(i == 0 ? "" : ", ").append(buckets[i]).append('=').append(filters[i]);
        }
        return sb.append('}').toString();
    }
}
