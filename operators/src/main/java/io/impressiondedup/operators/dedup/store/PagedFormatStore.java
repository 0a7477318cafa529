package io.impressiondedup.operators.dedup.store;

import java.util.BitSet;

/**
 * What both formats' stores do alike with their pages ({@link MapStatePages}): begin a record, write a shard, flush,
 * weigh the dirty pages, and record an insert into a cached page in the {@link PageJournal}. Each format adds its own
 * lookup, insert, redo and bucket removal.
 */
abstract class PagedFormatStore<V> implements FormatStore {

    protected final MapStatePages<V> pages;
    /** Where inserts into cached pages are recorded; {@code null} without a cache or a journal. */
    private final PageJournal journal;

    PagedFormatStore(MapStatePages<V> pages, PageJournal journal) {
        this.pages = pages;
        this.journal = pages.cached() ? journal : null;
    }

    /**
     * Records an insert that changed a page of the current shard ({@link PageJournal#record}), if changes are
     * journaled: {@code detail}, {@code a} and {@code b} as {@link #redo} takes them.
     */
    protected final void journal(long bucket, int detail, long a, long b) {
        if (journal != null) {
            journal.record(pages.shard(), format(), bucket, detail, a, b, journalsSmallNumbers());
        }
    }

    @Override
    public final void beginRecord(int shard) {
        pages.beginRecord(shard);
    }

    @Override
    public final void writeShard(int shard) {
        pages.writeShard(shard);
    }

    @Override
    public final int flush(BitSet selected) {
        return pages.flush(selected);
    }

    @Override
    public final void addDirtyBytes(long[] bytesByShard) {
        pages.addDirtyBytes(bytesByShard);
    }

    @Override
    public final long heldBytes() {
        return pages.heldBytes();
    }
}
