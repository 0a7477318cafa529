package io.impressiondedup.state.fingerprints;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import java.util.Objects;

/**
 * The metadata of one shard-bucket stored in the fingerprint format: its fingerprint scheme, the sizing its
 * sections were written with, and the distinct fingerprints it holds. Its sections live in the shard's {@link
 * FingerprintPage}s, one per page, beside the other buckets' sections.
 *
 * <p><b>Why the sizing is kept per bucket.</b> A section's value range U (band by band) and the page a record maps
 * to follow from the sizing ({@link FingerprintStoreSizing}); a restore under another plan (a new capacity, FPP or
 * page count) must read an old bucket with the ranges it was written with, so every bucket carries its own and
 * only new buckets take the new plan's. A record then reads one page per distinct page count among its
 * buckets: one, unless the plan changed within the retention.
 *
 * <p><b>Count and band.</b> {@link #inserted()} counts the fingerprints inserted, each found absent from every
 * band first, so it is exactly the bucket's distinct values over the shard. The band of the next insert follows
 * from it ({@link FingerprintStoreSizing#bandFor}). It counts distinct values, not distinct impressions: two
 * impressions that share a value are one false positive, the second found present and never inserted.
 *
 * <p><b>Merged shards.</b> {@code dedup-tools reshape} to k times fewer shards keeps every section as it was and
 * only moves its page: a shard's requests are those of k consecutive shards of the old count ({@code
 * FingerprintScheme#shardOf} takes the top bits of the digest, so old shard s is part {@code s mod k} of new shard
 * {@code s / k}), and part j's page p becomes page {@code j P + p} of a store of {@code k P} pages ({@link
 * #pageKey}). A record of part j then meets exactly the sections part j had, whose entries and value ranges are
 * unchanged, so the chance a fresh key matches the bucket is what it was before the merge: the per-lookup FPP is
 * kept, which OR-ing Bloom filters could not do. {@link #subShards()} is that k (1 for a bucket never merged,
 * and multiplied again by a later merge). The count of a merged bucket is the sum of its parts', and its next
 * band follows from that sum: a part's band i then holds its own entries of band i plus at most {@code 2^(i-1) n0
 * - (sum - its own count)} new ones, never more than the band is sized for, so the promise holds (bands open
 * sooner than the parts' own counts would open them: a few bits more per new entry).
 *
 * <p><b>No shard state cap.</b> Unlike a Bloom filter, whose size is fixed per layer, the store grows by about
 * 15-20 bits per entry whatever the load, so memory follows the impressions inserted; the FPP promise holds up to
 * the last band ({@link FingerprintStoreSizing#maxBand()}, 2^15 times the plan at least) and rises linearly
 * past it ({@link Insertion#OVER_FILLED}). Mutable only through {@link #recordInsert()}; not thread-safe.
 */
public final class FingerprintBucket implements BucketFilter {

    private final FingerprintScheme fingerprintScheme;
    private final FingerprintStoreSizing sizing;
    private final int subShards;
    private long inserted;

    /** A bucket never merged ({@link #subShards()} 1). */
    public FingerprintBucket(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing, long inserted) {
        this(fingerprintScheme, sizing, inserted, 1);
    }

    public FingerprintBucket(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing, long inserted, int subShards) {
        this.fingerprintScheme = Objects.requireNonNull(fingerprintScheme, "fingerprintScheme");
        this.sizing = Objects.requireNonNull(sizing, "sizing");
        if (inserted < 0) {
            throw new IllegalArgumentException("inserted must not be negative, but was " + inserted);
        }
        if (subShards < 1 || (long) subShards * sizing.pages() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sub-shards must be at least 1 and keep " + sizing.pages() + " x sub-shards pages"
                    + " in an int, but was " + subShards);
        }
        this.inserted = inserted;
        this.subShards = subShards;
    }

    /** The state key of page {@code index} of a store of {@code pageCount} pages: the count is part of the key. */
    public static long pageKey(int pageCount, int index) {
        return ((long) pageCount << 32) | index;
    }

    /** The page index of a {@link #pageKey}. */
    public static int pageIndexOf(long key) {
        return (int) key;
    }

    /** The page count of a {@link #pageKey}. */
    public static int pageCountOf(long key) {
        return (int) (key >>> 32);
    }

    /**
     * The key of the page that holds a record's sections of this bucket: page {@code pageOf(h1)} of the sizing's
     * pages, in the part of a merged bucket that its digest's shard under {@code shards x subShards} shards names
     * (class comment); {@code shards} is the job's shard count now.
     */
    public long pageKey(long h1, long digestHigh, int shards) {
        int page = sizing.pageOf(h1);
        if (subShards == 1) {
            return pageKey(sizing.pages(), page);
        }
        int part = FingerprintScheme.shardOf(digestHigh, shards * subShards) - subShards * FingerprintScheme.shardOf(digestHigh, shards);
        return pageKey(sizing.pages() * subShards, part * sizing.pages() + page);
    }

    /** How many shards of an earlier shard count this bucket's sections come from (1: never merged). */
    public int subShards() {
        return subShards;
    }

    /** This bucket as part {@code 0..k-1} of a shard k times wider ({@link #subShards()} times k), the same count. */
    public FingerprintBucket asPartOfMerge(int k) {
        return new FingerprintBucket(fingerprintScheme, sizing, inserted, Math.multiplyExact(subShards, k));
    }

    /** The bucket merged with {@code other}, another part of the same merged shard: counts add up. */
    public FingerprintBucket mergedWith(FingerprintBucket other) {
        if (!fingerprintScheme.equals(other.fingerprintScheme) || !sizing.equals(other.sizing) || subShards != other.subShards) {
            throw new IllegalArgumentException("cannot merge " + this + " with " + other + ": their schemes, sizings or sub-shards differ");
        }
        return new FingerprintBucket(fingerprintScheme, sizing, Math.addExact(inserted, other.inserted), subShards);
    }

    @Override
    public StateFormat format() {
        return StateFormat.FINGERPRINTS;
    }

    @Override
    public FingerprintScheme fingerprintScheme() {
        return fingerprintScheme;
    }

    /** What the bucket's sections were sized with: its pages, and each band's value range. */
    public FingerprintStoreSizing sizing() {
        return sizing;
    }

    @Override
    public long initialCapacity() {
        return sizing.capacityPerShard();
    }

    @Override
    public long inserted() {
        return inserted;
    }

    /** The band the next insert goes to. */
    public int nextBand() {
        return sizing.bandFor(inserted);
    }

    /**
     * Counts an insert the caller has just written into {@link #nextBand()}'s section. {@link Insertion#GREW} when
     * it opened a band (the first over-plan insert of each doubling), {@link Insertion#OVER_FILLED} past the last
     * band's capacity.
     */
    public Insertion recordInsert() {
        long held = inserted;
        int band = sizing.bandFor(held);
        inserted++;
        if (held >= sizing.capacityPerShard() << sizing.maxBand()) {
            return Insertion.OVER_FILLED;
        }
        return band > 0 && held == sizing.capacityPerShard() << (band - 1) ? Insertion.GREW : Insertion.INSERTED;
    }

    @Override
    public double estimatedFpp() {
        return sizing.bucketFpp(inserted);
    }

    @Override
    public long growthBytes() {
        return 0;
    }

    @Override
    public FingerprintBucket copy() {
        return new FingerprintBucket(fingerprintScheme, sizing, inserted, subShards);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FingerprintBucket)) {
            return false;
        }
        FingerprintBucket that = (FingerprintBucket) o;
        return inserted == that.inserted && subShards == that.subShards && fingerprintScheme.equals(that.fingerprintScheme)
                && sizing.equals(that.sizing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fingerprintScheme, sizing, inserted, subShards);
    }

    @Override
    public String toString() {
        return "FingerprintBucket{" + fingerprintScheme + ", " + sizing + ", inserted=" + inserted
                + (subShards == 1 ? "" : ", subShards=" + subShards) + '}';
    }
}
