package io.impressiondedup.state.bloom;

import java.util.Arrays;

/**
 * The pages at one page index of every filter of a shard that share a geometry: the value of one
 * entry of the operator's page state.
 *
 * <p><b>Why group.</b> A record is checked against every live bucket (three with daily buckets and two
 * days of retention). Filters of equal geometry, which is the normal case because every day is sized
 * from the same plan, put an element into the same block and so the same page index. Keeping those
 * pages in one entry turns three state lookups per record into one, and an insert into one write:
 * three times fewer RocksDB reads, and three times fewer hash lookups on the heap. Sub-pages are
 * identified by their owner (bucket, layer), so a group may safely hold pages of any geometry; keys
 * merely put those of one geometry together ({@link PageAddress}).
 *
 * <p>A handful of sub-pages in exactly sized arrays.
 */
public final class PageGroup {

    private static final long[] NO_OWNERS = new long[0];
    private static final long[][] NO_PAGES = new long[0][];

    /**
     * Owner of each sub-page: {@code bucket << 8 | layer}. One array, sized exactly: on the heap a
     * group costs about 100 bytes besides its sub-pages, which keeps the state within a few percent
     * of the raw bits even while a group holds a single page.
     */
    private long[] owners;
    private long[][] pages;

    public PageGroup() {
        this(NO_OWNERS, NO_PAGES);
    }

    private PageGroup(long[] owners, long[][] pages) {
        this.owners = owners;
        this.pages = pages;
    }

    private static long owner(long bucket, int layer) {
        return (bucket << 8) | layer;
    }

    /** The sub-page of {@code bucket}'s layer {@code layer}, or {@code null}. */
    public long[] find(long bucket, int layer) {
        long owner = owner(bucket, layer);
        for (int i = 0; i < owners.length; i++) {
            if (owners[i] == owner) {
                return pages[i];
            }
        }
        return null;
    }

    /** Sets (or replaces) the sub-page of {@code bucket}'s layer {@code layer}. */
    public void put(long bucket, int layer, long[] words) {
        if (layer < 0 || layer > PageAddress.MAX_LAYER) {
            throw new IllegalArgumentException("layer " + layer + " out of [0, " + PageAddress.MAX_LAYER + "]");
        }
        if (bucket < -(1L << 55) || bucket >= (1L << 55)) {
            throw new IllegalArgumentException("bucket id " + bucket + " does not fit 56 bits");
        }
        long owner = owner(bucket, layer);
        for (int i = 0; i < owners.length; i++) {
            if (owners[i] == owner) {
                pages[i] = words;
                return;
            }
        }
        int size = owners.length;
        owners = Arrays.copyOf(owners, size + 1);
        pages = Arrays.copyOf(pages, size + 1);
        owners[size] = owner;
        pages[size] = words;
    }

    /** Drops every sub-page of {@code bucket}; returns whether any was dropped. */
    public boolean removeBucket(long bucket) {
        int kept = 0;
        for (int i = 0; i < owners.length; i++) {
            if ((owners[i] >> 8) != bucket) {
                kept++;
            }
        }
        if (kept == owners.length) {
            return false;
        }
        long[] keptOwners = new long[kept];
        long[][] keptPages = new long[kept][];
        for (int i = 0, j = 0; i < owners.length; i++) {
            if ((owners[i] >> 8) != bucket) {
                keptOwners[j] = owners[i];
                keptPages[j] = pages[i];
                j++;
            }
        }
        owners = keptOwners;
        pages = keptPages;
        return true;
    }

    public int size() {
        return owners.length;
    }

    public boolean isEmpty() {
        return owners.length == 0;
    }

    public long bucketAt(int index) {
        return owners[index] >> 8;
    }

    public int layerAt(int index) {
        return (int) (owners[index] & 0xFF);
    }

    public long[] pageAt(int index) {
        return pages[index];
    }

    /** Words of all sub-pages (for size accounting). */
    public long words() {
        long words = 0;
        for (long[] page : pages) {
            words += page.length;
        }
        return words;
    }

    /**
     * Heap bytes of this group: the object (24 B), its owner array (16 + 8n), its page array (16 + 4n, rounded to 8) and
     * each page (16 B header and its words). What a page cache weighs it at.
     */
    public long heapBytes() {
        int n = owners.length;
        long bytes = 24 + (16 + 8L * n) + (16 + 4L * n + 7) / 8 * 8;
        for (long[] page : pages) {
            bytes += 16 + 8L * page.length;
        }
        return bytes;
    }

    public PageGroup copy() {
        long[][] copies = new long[pages.length][];
        for (int i = 0; i < pages.length; i++) {
            copies[i] = pages[i].clone();
        }
        return new PageGroup(owners.clone(), copies);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PageGroup)) {
            return false;
        }
        PageGroup that = (PageGroup) o;
        if (size() != that.size()) {
            return false;
        }
        for (int i = 0; i < size(); i++) {
            if (!Arrays.equals(pages[i], that.find(bucketAt(i), layerAt(i)))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int result = size();
        for (long owner : owners) {
            result += Long.hashCode(owner);
        }
        return result;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("PageGroup{");
        for (int i = 0; i < size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(bucketAt(i)).append('/').append(layerAt(i)).append(':').append(pages[i].length).append('w');
        }
        return sb.append('}').toString();
    }

    /** For {@link BloomGeometry} consumers that want a fresh, zeroed sub-page. */
    public static long[] newPage(BloomGeometry geometry, int page) {
        return new long[geometry.wordsInPage(page)];
    }
}
