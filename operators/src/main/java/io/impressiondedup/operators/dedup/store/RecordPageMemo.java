package io.impressiondedup.operators.dedup.store;

/**
 * The pages the current record has read, by state key, absent ones included: a record's lookup and its insert
 * then read state (or the page cache) once per page. A handful of slots, searched linearly: a record reads one
 * page per page geometry (Bloom) or page count (fingerprints) of its buckets, normally one. Forgotten at the next
 * record ({@link #clear}); full, it starts over.
 */
final class RecordPageMemo<V> {

    private final long[] keys;
    private final Object[] pages;
    private int count;

    RecordPageMemo(int slots) {
        this.keys = new long[slots];
        this.pages = new Object[slots];
    }

    /** The slot of {@code key}, or -1 if this record has not read it. */
    int find(long key) {
        for (int i = 0; i < count; i++) {
            if (keys[i] == key) {
                return i;
            }
        }
        return -1;
    }

    /** The page (or {@code null}: known absent) in slot {@code slot}. */
    @SuppressWarnings("unchecked")
    V at(int slot) {
        return (V) pages[slot];
    }

    /** Remembers {@code page} (or its absence) at {@code key}. */
    void remember(long key, V page) {
        int slot = find(key);
        if (slot >= 0) {
            pages[slot] = page;
            return;
        }
        if (count == keys.length) {
            clear(); // more pages than any record reads; start over
        }
        keys[count] = key;
        pages[count] = page;
        count++;
    }

    void clear() {
        for (int i = 0; i < count; i++) {
            pages[i] = null;
        }
        count = 0;
    }
}
