package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * What a checkpoint writes for a shard instead of the cached pages it changed, while that is fewer bytes: the inserts
 * that changed them, each enough to redo its change, appended to the shard's keyed {@code ListState<byte[]>} ({@code
 * page-journal}) once per checkpoint, one value per interval. An entry is what its format's store journals ({@link
 * FormatStore#redo}): a Bloom insert's layer and both probe hashes (16 B), a fingerprint insert's part and band, its
 * page and its section value. The value's bytes are {@link JournalValues}'s: a checkpoint writes an interval's entries
 * grouped by bucket and detail, a fingerprint group sorted and Elias-Fano coded (value version 3: 2.5-2.7 B an insert
 * at 50M impressions in state with 5 s checkpoints, where one by one as varints, version 2, they took 6.9 B); values of
 * versions 1 and 2 are still redone.
 *
 * <p><b>Why.</b> A unique impression changes one page (a Bloom page group holds every live bucket's page at its index,
 * about 1 KB; a fingerprint page every bucket's sections). Written back at every checkpoint, that page costs its whole
 * size for the one insert an interval gives it once the state is larger than an interval's traffic: at 20M impressions
 * in state, 230-250 B of checkpoint per unique impression, and the serialization, flushes and compactions of those
 * bytes were the difference between 5 s and 30 s checkpoints (bench/results/2026-11-26-cluster-50m-profile-settings.md).
 *
 * <p><b>The rule, per shard, at each checkpoint.</b> Let J be the shard's journal bytes in state plus this interval's,
 * and D the heap bytes of its dirty cached pages. If J &lt; D / {@value #DIRTY_BYTES_PER_JOURNAL_BYTE}, this interval's
 * entries are appended and the pages stay dirty in the cache; otherwise the shard's dirty pages are written and its
 * journal is cleared. Rent or buy: the journal written before the pages are is at most a quarter of what writing them
 * costs, so no run writes more than 1.25 times the bytes of writing pages at every checkpoint, while a page that takes
 * several inserts before it is written is written once for all of them. Where a page takes many inserts per interval
 * (small state), D stays small and the rule writes pages, as without a journal; where each insert meets a page of its
 * own (days of impressions in state), it writes entries for several intervals, then the pages once. The quarter also
 * bounds what a restore redoes: a quarter of the page cache's budget in entries (16 B each for Bloom, 2-4 B for
 * fingerprints, fewer bytes an entry the more entries a shard's interval holds).
 *
 * <p><b>What that costs in a long run.</b> Where every insert meets a page of its own, the shard's dirty bytes D grow
 * to its whole cached state S, and the rule writes S once the journal reaches S / 4, that is after S / (4 e) inserts of
 * e bytes: {@code (S + S / 4) / (S / (4 e)) = 5 e} bytes an insert over the cycle, besides RocksDB's compactions of
 * both. The journal's own e is what a run shorter than a cycle writes: a 4M-record benchmark run at 50M impressions
 * in state ends before the rule writes any shard's pages. The fingerprint format's e (2.5 B) is close to what its pages
 * hold an entry in (about 2 B): a larger share than a quarter would write fewer bytes over a cycle, at the price of
 * more entries to redo at a restore; the quarter is kept.
 *
 * <p>What a shard's journal does not change: a dirty page evicted from the cache between checkpoints (from its off-heap
 * tier where it has one: {@link OffHeapPageTier}) is written then, as without a journal; so while the state is larger than
 * the cache, most pages are written by evictions, and the journal saves little (bench/results/2026-11-28-*-20m-journal*.txt).
 * A dirty page in the off-heap tier counts in D and is written by the rule as one on the heap is.
 *
 * <p><b>What holds at every checkpoint</b> (the invariant a restore relies on): every insert whose page change may be
 * missing from the pages in state is in the shard's journal in state. An insert is journaled when it changes a cached
 * page; the entries leave only when none of the shard's cached pages is dirty: after the shard's pages are written at a
 * checkpoint, or when a bucket's expiry writes them ({@link #shardWritten}). A dirty page evicted between checkpoints is
 * written to state and its entries stay: redoing an insert on a page that has it is a no-op (a Bloom filter's bits are
 * set again; a fingerprint section holds each value once), so entries may overlap the pages, in any order.
 *
 * <p><b>Restore</b> ({@link #replay}): every entry in state is redone through the stores, after the directories are
 * restored; an entry whose bucket has expired since is skipped. The counts are not touched: the directory of the same
 * checkpoint has them. The replayed pages are dirty in the cache and their entries stay in state until the rule writes
 * them.
 *
 * <p><b>Savepoints hold no journal</b> ({@link #snapshot} with {@code savepoint}): every dirty page is written and every
 * journal cleared, so a savepoint's pages are complete, the state tools read them as they are, and a savepoint restores
 * onto either backend. A retained checkpoint may hold one; the tools refuse it, naming the shards.
 *
 * <p>Only pages behind a cache are journaled: without one (the heap backend's default) and for the format new buckets
 * are not created in, every write goes to state at once. Not thread-safe: the task thread only.
 */
public final class PageJournal {

    /** The journal a shard may hold, as a fraction of its dirty page bytes: J &lt; D / this (class comment). */
    static final int DIRTY_BYTES_PER_JOURNAL_BYTE = 4;

    private final ListState<byte[]> state;
    /** This interval's entries per shard, or {@code null}. */
    private final DataOutputSerializer[] pending;
    private final long[] lastBucket;
    private final StateFormat[] lastFormat;
    /** By format ordinal: whether the format's entries are small numbers, collected as varints. */
    private final boolean[] smallNumbers = new boolean[StateFormat.values().length];
    /** Bytes of each shard's journal in state. */
    private final long[] written;
    /** The shards whose journal in state is not empty. */
    private final BitSet inState = new BitSet();

    /** Bytes appended at the last checkpoint, and shards whose pages it wrote instead. */
    private long lastAppendedBytes;
    private int lastWrittenShards;

    PageJournal(ListState<byte[]> state, int shards) {
        this.state = state;
        this.pending = new DataOutputSerializer[shards];
        this.lastBucket = new long[shards];
        this.lastFormat = new StateFormat[shards];
        this.written = new long[shards];
    }

    /**
     * Records an insert into a cached page of {@code shard}: enough for {@link FormatStore#redo} to make its change
     * again; {@code a} and {@code b} are written as varints where {@code smallNumbers} ({@link
     * FormatStore#journalsSmallNumbers}).
     */
    void record(int shard, StateFormat format, long bucket, int detail, long a, long b, boolean smallNumbers) {
        try {
            DataOutputSerializer out = pending[shard];
            if (out == null) {
                out = new DataOutputSerializer(256);
                out.writeByte(JournalValues.UNSORTED_VERSION);
                pending[shard] = out;
            } else if (lastBucket[shard] == bucket && lastFormat[shard] == format) {
                out.writeByte(JournalValues.SAME_BUCKET);
                writeEntry(out, detail, a, b, smallNumbers);
                return;
            }
            out.writeByte(JournalValues.NEW_BUCKET);
            out.writeLong(bucket);
            out.writeByte(format.ordinal());
            this.smallNumbers[format.ordinal()] = smallNumbers;
            lastBucket[shard] = bucket;
            lastFormat[shard] = format;
            writeEntry(out, detail, a, b, smallNumbers);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a growing in-memory buffer
        }
    }

    private static void writeEntry(DataOutputSerializer out, int detail, long a, long b, boolean smallNumbers)
            throws IOException {
        JournalValues.writeVarLong(out, detail & 0xFFFFFFFFL);
        if (smallNumbers) {
            JournalValues.writeVarLong(out, a);
            JournalValues.writeVarLong(out, b);
        } else {
            out.writeLong(a);
            out.writeLong(b);
        }
    }

    /**
     * At a checkpoint (after the directories are written): per shard, appends this interval's entries or writes the
     * shard's dirty pages and clears its journal (class comment); at a savepoint, writes every dirty page and clears
     * every journal.
     *
     * @param dirtyBytes the heap bytes of each shard's dirty cached pages
     * @param writePages writes the dirty cached pages of the shards given (all of them for {@code null}); returns how many
     * @param selectShardKey makes a shard's key current
     * @return the pages written
     */
    int snapshot(boolean savepoint, long[] dirtyBytes, Function<BitSet, Integer> writePages,
            IntConsumer selectShardKey) throws Exception {
        BitSet writeShards = new BitSet();
        long appended = 0;
        for (int shard = 0; shard < pending.length; shard++) {
            DataOutputSerializer out = pending[shard];
            if (savepoint) {
                if (out != null || inState.get(shard) || dirtyBytes[shard] > 0) {
                    writeShards.set(shard);
                }
            } else if (out != null) {
                byte[] value = JournalValues.sorted(out.getSharedBuffer(), out.length(), smallNumbers);
                if (written[shard] + value.length >= dirtyBytes[shard] / DIRTY_BYTES_PER_JOURNAL_BYTE) {
                    writeShards.set(shard);
                } else {
                    selectShardKey.accept(shard);
                    state.add(value);
                    written[shard] += value.length;
                    appended += value.length;
                    inState.set(shard);
                }
            } else if (dirtyBytes[shard] > 0 && !inState.get(shard)) {
                writeShards.set(shard); // dirty pages no entry covers: cannot happen while every change is journaled
            }
        }
        int pages = writePages.apply(savepoint ? null : writeShards);
        for (int shard = writeShards.nextSetBit(0); shard >= 0; shard = writeShards.nextSetBit(shard + 1)) {
            if (inState.get(shard)) {
                selectShardKey.accept(shard);
                state.clear();
            }
            forget(shard);
        }
        for (int shard = 0; shard < pending.length; shard++) {
            pending[shard] = null;
        }
        lastAppendedBytes = appended;
        lastWrittenShards = writeShards.cardinality();
        return pages;
    }

    /**
     * {@code shard}'s dirty pages were all written (a bucket's expiry writes them before dropping its pages): its
     * journal, in state (its key current) and pending, is no longer needed.
     */
    void shardWritten(int shard) {
        if (inState.get(shard)) {
            state.clear();
        }
        forget(shard);
        pending[shard] = null;
    }

    private void forget(int shard) {
        inState.clear(shard);
        written[shard] = 0;
    }

    /**
     * Redoes, at restore, the journal of the shard whose key is current, through {@code stores} (begun on the shard),
     * against its restored {@code directory} ({@code null}: none); returns the entries redone.
     */
    long replay(int shard, BucketFilters directory, FormatStores stores) throws Exception {
        long bytes = 0;
        long redone = 0;
        Iterable<byte[]> values = state.get();
        if (values == null) {
            return 0;
        }
        for (byte[] value : values) {
            bytes += value.length;
            redone += JournalValues.redo(value, shard, directory, stores);
        }
        if (bytes > 0) {
            written[shard] = bytes;
            inState.set(shard);
        }
        return redone;
    }

    /** Bytes of the journals in state, all shards. */
    long bytesInState() {
        long total = 0;
        for (int shard = inState.nextSetBit(0); shard >= 0; shard = inState.nextSetBit(shard + 1)) {
            total += written[shard];
        }
        return total;
    }

    /** The shard count: the journal's arrays are indexed by shard. */
    int shards() {
        return pending.length;
    }

    /** The shards whose journal in state is not empty. */
    int shardsInState() {
        return inState.cardinality();
    }

    /** "appended 1,234 B for 10 shards; wrote the pages of 3": the last checkpoint's choice, for the log. */
    String lastCheckpoint() {
        return String.format(Locale.ROOT, "page journal %,d B appended, %,d B in %d shards; pages of %d shards written",
                lastAppendedBytes, bytesInState(), shardsInState(), lastWrittenShards);
    }
}
