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
 * <p><b>Layout: one array.</b> {@code [0]} the sub-page count n; {@code [1 + 2i]} the owner of sub-page i
 * ({@code bucket << 8 | layer}), {@code [2 + 2i]} its length in words; from {@code 1 + 2n} the sub-pages' words, one
 * after another in the same order. A lookup reads the group, the array's first cache line (the owners of up to three
 * sub-pages) and the probed block: one object less to wait on than with an array of owners and one of pages, each
 * page an array of its own. And a cached group is two objects (this and its array) where it was 3 + n (the group, its
 * owner array, its page array and n pages): the garbage collector's marking, which visits every live object of the page
 * cache in each cycle, visits 2 where it visited 6 for a group of three pages.
 * Against an object holding an owner array and an array of separate pages, a group of n sub-pages takes {@code 8n + 16 +
 * 4n} (rounded up to 8) bytes less heap: with three pages of 256 B, 856 bytes against 912.
 *
 * <p>A lookup returns the offset of a sub-page in {@link #array()}; the words there may be changed in place (an
 * insert), after which the group is written back as it is. {@link #put} copies the given words in.
 */
public final class PageGroup {

    /** The layout of a group with no sub-page; never written to ({@link #put} and {@link #removeBucket} make new arrays). */
    private static final long[] EMPTY = {0};

    private long[] data;

    public PageGroup() {
        this(EMPTY);
    }

    private PageGroup(long[] data) {
        this.data = data;
    }

    /**
     * A group over {@code data} laid out as the class comment says (a deserializer's result), checked: a count that fits,
     * valid owners and lengths, and words that fill the array exactly.
     *
     * @throws IllegalArgumentException if {@code data} is not such a layout
     */
    public static PageGroup ofLayout(long[] data) {
        if (data.length == 0 || data[0] < 0 || data[0] > (data.length - 1) / 2) {
            throw new IllegalArgumentException("not a page group layout: " + (data.length == 0 ? "empty" : data[0] + " sub-pages in "
                    + data.length + " words"));
        }
        int n = (int) data[0];
        long words = 0;
        for (int i = 0; i < n; i++) {
            long length = data[2 + 2 * i];
            if (length < 0) {
                throw new IllegalArgumentException("not a page group layout: sub-page " + i + " of " + length + " words");
            }
            words += length;
        }
        if (1 + 2L * n + words != data.length) {
            throw new IllegalArgumentException("not a page group layout: " + n + " sub-pages of " + words + " words in " + data.length);
        }
        return new PageGroup(n == 0 ? EMPTY : data);
    }

    private static long owner(long bucket, int layer) {
        return (bucket << 8) | layer;
    }

    /**
     * The offset in {@link #array()} of the sub-page of {@code bucket}'s layer {@code layer}, or -1 if the group has none. The
     * hot path of every lookup.
     */
    public int offsetOf(long bucket, int layer) {
        long owner = owner(bucket, layer);
        long[] d = data;
        int n = (int) d[0];
        int offset = 1 + 2 * n;
        for (int i = 0; i < n; i++) {
            if (d[1 + 2 * i] == owner) {
                return offset;
            }
            offset += (int) d[2 + 2 * i];
        }
        return -1;
    }

    /**
     * The group's one array (class comment): a sub-page's words are at {@link #offsetOf} or {@link #offsetAt}. Changed in place
     * only within a sub-page's words; replaced by {@link #put} and {@link #removeBucket}, so read it again after those.
     */
    public long[] array() {
        return data;
    }

    /** A copy of the words of {@code bucket}'s layer {@code layer}, or {@code null}: for tools and tests, not the hot path. */
    public long[] find(long bucket, int layer) {
        int index = indexOf(owner(bucket, layer));
        return index < 0 ? null : pageAt(index);
    }

    private int indexOf(long owner) {
        for (int i = 0; i < size(); i++) {
            if (data[1 + 2 * i] == owner) {
                return i;
            }
        }
        return -1;
    }

    /** Sets (or replaces) the sub-page of {@code bucket}'s layer {@code layer} to a copy of {@code words}. */
    public void put(long bucket, int layer, long[] words) {
        if (layer < 0 || layer > PageAddress.MAX_LAYER) {
            throw new IllegalArgumentException("layer " + layer + " out of [0, " + PageAddress.MAX_LAYER + "]");
        }
        if (bucket < -(1L << 55) || bucket >= (1L << 55)) {
            throw new IllegalArgumentException("bucket id " + bucket + " does not fit 56 bits");
        }
        long owner = owner(bucket, layer);
        int existing = indexOf(owner);
        if (existing >= 0) {
            if (lengthAt(existing) == words.length) {
                System.arraycopy(words, 0, data, offsetAt(existing), words.length);
            } else {
                replace(existing, words);
            }
            return;
        }
        int n = size();
        long[] grown = new long[data.length + 2 + words.length];
        grown[0] = n + 1;
        System.arraycopy(data, 1, grown, 1, 2 * n);
        grown[1 + 2 * n] = owner;
        grown[2 + 2 * n] = words.length;
        System.arraycopy(data, 1 + 2 * n, grown, 3 + 2 * n, data.length - 1 - 2 * n);
        System.arraycopy(words, 0, grown, data.length + 2, words.length);
        data = grown;
    }

    /** Sub-page {@code index} replaced by {@code words} of another length: the array rebuilt. */
    private void replace(int index, long[] words) {
        int n = size();
        long[] rebuilt = new long[data.length - lengthAt(index) + words.length];
        System.arraycopy(data, 0, rebuilt, 0, 1 + 2 * n);
        rebuilt[2 + 2 * index] = words.length;
        int to = 1 + 2 * n;
        for (int i = 0; i < n; i++) {
            if (i == index) {
                System.arraycopy(words, 0, rebuilt, to, words.length);
                to += words.length;
            } else {
                System.arraycopy(data, offsetAt(i), rebuilt, to, lengthAt(i));
                to += lengthAt(i);
            }
        }
        data = rebuilt;
    }

    /** Drops every sub-page of {@code bucket}; returns whether any was dropped. */
    public boolean removeBucket(long bucket) {
        int n = size();
        int kept = 0;
        int keptWords = 0;
        for (int i = 0; i < n; i++) {
            if (bucketAt(i) != bucket) {
                kept++;
                keptWords += lengthAt(i);
            }
        }
        if (kept == n) {
            return false;
        }
        if (kept == 0) {
            data = EMPTY;
            return true;
        }
        long[] rebuilt = new long[1 + 2 * kept + keptWords];
        rebuilt[0] = kept;
        for (int i = 0, j = 0, to = 1 + 2 * kept; i < n; i++) {
            if (bucketAt(i) != bucket) {
                rebuilt[1 + 2 * j] = data[1 + 2 * i];
                rebuilt[2 + 2 * j] = data[2 + 2 * i];
                System.arraycopy(data, offsetAt(i), rebuilt, to, lengthAt(i));
                to += lengthAt(i);
                j++;
            }
        }
        data = rebuilt;
        return true;
    }

    public int size() {
        return (int) data[0];
    }

    public boolean isEmpty() {
        return data[0] == 0;
    }

    public long bucketAt(int index) {
        return data[1 + 2 * index] >> 8;
    }

    public int layerAt(int index) {
        return (int) (data[1 + 2 * index] & 0xFF);
    }

    /** Words of sub-page {@code index}. */
    public int lengthAt(int index) {
        return (int) data[2 + 2 * index];
    }

    /** Where sub-page {@code index}'s words begin in {@link #array()}. */
    public int offsetAt(int index) {
        int offset = 1 + 2 * size();
        for (int i = 0; i < index; i++) {
            offset += lengthAt(i);
        }
        return offset;
    }

    /** A copy of the words of sub-page {@code index}: for tools and tests, not the hot path. */
    public long[] pageAt(int index) {
        int offset = offsetAt(index);
        return Arrays.copyOfRange(data, offset, offset + lengthAt(index));
    }

    /** Words of all sub-pages (for size accounting). */
    public long words() {
        return data.length - 1 - 2L * size();
    }

    /** Heap bytes of this group: the object (16 B: header and one reference) and its array (16 B header and its words). */
    public long heapBytes() {
        return 16 + 16 + 8L * data.length;
    }

    public PageGroup copy() {
        return new PageGroup(data == EMPTY ? EMPTY : data.clone());
    }

    /** Equal when they hold the same sub-pages with the same words, in any order. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PageGroup)) {
            return false;
        }
        PageGroup that = (PageGroup) o;
        if (size() != that.size() || data.length != that.data.length) {
            return false;
        }
        for (int i = 0; i < size(); i++) {
            int j = that.indexOf(data[1 + 2 * i]);
            if (j < 0 || that.lengthAt(j) != lengthAt(i)) {
                return false;
            }
            int from = offsetAt(i);
            int thatFrom = that.offsetAt(j);
            if (!Arrays.equals(data, from, from + lengthAt(i), that.data, thatFrom, thatFrom + lengthAt(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int result = size();
        for (int i = 0; i < size(); i++) {
            result += Long.hashCode(data[1 + 2 * i]);
        }
        return result;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("PageGroup{");
        for (int i = 0; i < size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(bucketAt(i)).append('/').append(layerAt(i)).append(':').append(lengthAt(i)).append('w');
        }
        return sb.append('}').toString();
    }

    /** For {@link BloomGeometry} consumers that want a fresh, zeroed sub-page. */
    public static long[] newPage(BloomGeometry geometry, int page) {
        return new long[geometry.wordsInPage(page)];
    }
}
