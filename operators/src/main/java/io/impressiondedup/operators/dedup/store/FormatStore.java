package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import java.util.BitSet;

/**
 * One {@link StateFormat}'s stored impressions: the pages of a shard's buckets in that format, in keyed state, and
 * everything the dedup operator and the state tools do with them. The one place a format's rules live on the
 * operator's side: {@link BloomStore} (Bloom filters in page groups) and {@link FingerprintStore} (Elias-Fano
 * sections in fingerprint pages). Which store answers for a bucket is chosen once, by the format the bucket was
 * created in ({@link FormatStores#of}); nothing else asks a bucket's class.
 *
 * <p>Per record: {@link #beginRecord} with its shard (the shard's key current), then {@link #mightContain} for each
 * bucket it is checked against and, on a miss everywhere, {@link #insertAbsent} into one. Not thread-safe: one per
 * operator or function instance.
 */
public interface FormatStore {

    /** The format whose buckets this store holds. */
    StateFormat format();

    /** A new, empty bucket in this format, sized by the plan (the job's; the tools' {@code inspect} has none). */
    BucketFilter newBucket();

    /**
     * The growth bytes a shard may take when new buckets are in this format: the shard state cap less the shard's planned
     * state (the fingerprint format keeps one more planned state for its overflow sections).
     */
    long shardGrowthAllowance();

    /** Starts a record of {@code shard}, whose key is current: forgets the pages the record before read. */
    void beginRecord(int shard);

    /** Whether {@code filter}, bucket {@code bucket} of the current shard, may hold the record of {@code hashes}. */
    boolean mightContain(long bucket, BucketFilter filter, RecordHashes hashes);

    /**
     * Inserts the record of {@code hashes}, found in no bucket, into {@code filter}, bucket {@code bucket} of the current
     * shard. A bucket over its plan grows while {@code room} leaves the shard growth bytes, else trades FPP for memory
     * ({@link ShardFilters} says how); no insert fails.
     */
    Insertion insertAbsent(long bucket, BucketFilter filter, RecordHashes hashes, GrowthRoom room);

    /**
     * Makes again, at restore, the page change of an insert the {@link PageJournal} recorded, as this store journaled
     * it: {@code detail} is what the insert chose (a Bloom filter's layer; a fingerprint bucket's part and band),
     * {@code a} and {@code b} where it went (a Bloom insert's two probe hashes; a fingerprint insert's page and section
     * value). Counts are not touched.
     */
    void redo(long bucket, BucketFilter filter, int detail, long a, long b);

    /**
     * The same for an entry of a journal value of version 1, which held the insert's two probe hashes in either format.
     */
    void redoFromHashes(long bucket, BucketFilter filter, int detail, long h1, long h2);

    /**
     * Whether this store's journal entries are small non-negative numbers, which the journal writes as varints (a page
     * index and a section value: 4-5 B), rather than hashes (8 B each).
     */
    boolean journalsSmallNumbers();

    /**
     * Removes every page entry of {@code bucket} from {@code shard} (its key current, its pages written and forgotten
     * by {@link #writeShard}): the bucket has expired.
     */
    void removeBucket(int shard, long bucket);

    /** Writes {@code shard}'s changed pages to state (its key current) and forgets its cached pages. */
    void writeShard(int shard);

    /** Writes the dirty cached pages of the shards in {@code selected} ({@code null}: all) to keyed state; returns how many. */
    int flush(BitSet selected);

    /** Adds the heap bytes of each shard's dirty cached pages to {@code bytesByShard} (indexed by shard). */
    void addDirtyBytes(long[] bytesByShard);

    /** The heap its page cache holds, bytes; 0 without one. */
    long heldBytes();

    /** What a bucket's growth over its plan added, for the warning: "added a layer for ...", "opened a fingerprint band". */
    String growth(BucketFilter filter);

    /** Why an insert into a full {@code filter} could not grow it, and what the shard does instead, for the warning. */
    String capped(BucketFilter filter);

    /** The growth bytes the current shard may still take; asked only when a bucket would grow. */
    @FunctionalInterface
    interface GrowthRoom {
        long bytesLeft();
    }
}
