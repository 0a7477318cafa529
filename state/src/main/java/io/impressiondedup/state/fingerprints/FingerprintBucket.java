package io.impressiondedup.state.fingerprints;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.StateFormat;
import java.util.Arrays;
import java.util.List;

/**
 * The metadata of one shard-bucket stored in the fingerprint format: its {@link FingerprintPart}s, each the
 * fingerprints of one cell of the shard with its own scheme, sizing and counts. Its sections live in the shard's
 * {@link FingerprintPage}s, beside the other buckets' sections.
 *
 * <p><b>One part, usually.</b> A bucket the job creates is one part covering the whole shard ({@link #create}); only
 * {@code dedup-tools reshape} makes more ({@link FingerprintReshape}): to fewer shards each old shard becomes a part of
 * its parent, and to more shards a child keeps the parts within its cell (or a copy of one wider than it).
 *
 * <p><b>The parts' cells are disjoint, and nested.</b> Each part is cell j of k of the shard ({@link
 * FingerprintPart#cellOf}); no two parts overlap, and every part's k divides the largest k of the bucket, so the
 * cells form one hierarchy (reshape refuses a shard count that would break it). They need not cover the shard: a
 * shard merged from old shards some of which never held the bucket has no part for their cells, and the first unique
 * record of such a cell creates one ({@link #partFor}): cell {@code cellOf(d, shards, K)} of the largest K, which the
 * hierarchy keeps disjoint from every part (a part whose cell held it would have been found). A record of a cell
 * without a part meets nothing of this bucket: its values were never inserted.
 *
 * <p><b>Sizing per part.</b> A section's value range U (band by band) and the page a record maps to follow from the
 * sizing ({@link FingerprintStoreSizing}); a restore under another plan (a new capacity, FPP or page count) must read
 * an old part with the ranges it was written with, so every part carries its own and only new parts take the new
 * plan's. A record then reads one page per distinct page key among its buckets: one, unless the plan changed within
 * the retention.
 *
 * <p><b>Figures.</b> {@link #inserted()} is the bucket's distinct values over the shard, exactly (the parts' sum, bands
 * and overflow); {@link #loadFactor()} and {@link #estimatedFpp()} are the fullest part's, what a record of that part
 * meets: a merged bucket reports each part's fill against its own plan, never the sum against one part's plan.
 */
public final class FingerprintBucket implements BucketFilter {

    private static final FingerprintPart[] NO_PARTS = new FingerprintPart[0];

    private FingerprintPart[] parts;

    /**
     * A bucket of {@code parts}, in any order: they must be disjoint, and every part's cell count must divide the
     * largest (class comment).
     */
    public FingerprintBucket(List<FingerprintPart> parts) {
        FingerprintPart[] sorted = parts.toArray(NO_PARTS);
        Arrays.sort(sorted, FingerprintBucket::compareStarts);
        checkNestedAndDisjoint(sorted);
        this.parts = sorted;
    }

    private FingerprintBucket(FingerprintPart[] parts) {
        this.parts = parts;
    }

    /** A new bucket of one empty part over the whole shard. */
    public static FingerprintBucket create(io.impressiondedup.state.identity.FingerprintScheme scheme, FingerprintStoreSizing sizing) {
        return new FingerprintBucket(new FingerprintPart[] {FingerprintPart.whole(scheme, sizing)});
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
     * The part holding a record of digest {@code digestHigh} under {@code shards} shards, or {@code null} if its cell has
     * none (then the bucket holds nothing of it). A lookup: allocates nothing.
     */
    public FingerprintPart partHolding(long digestHigh, int shards) {
        FingerprintPart[] parts = this.parts;
        if (parts.length == 1 && parts[0].cellCount() == 1) {
            return parts[0];
        }
        for (FingerprintPart part : parts) {
            if (part.covers(digestHigh, shards)) {
                return part;
            }
        }
        return null;
    }

    /**
     * The part a record of digest {@code digestHigh} is inserted into: {@link #partHolding}, or, for a cell without a
     * part, a new empty one with {@code scheme} and {@code sizing} (the plan's) for the record's cell at the largest
     * cell count of the bucket (class comment).
     */
    public FingerprintPart partFor(long digestHigh, int shards, io.impressiondedup.state.identity.FingerprintScheme scheme,
            FingerprintStoreSizing sizing) {
        FingerprintPart holding = partHolding(digestHigh, shards);
        if (holding != null) {
            return holding;
        }
        int cells = largestCellCount();
        FingerprintPart created = new FingerprintPart(scheme, sizing, FingerprintPart.cellOf(digestHigh, shards, cells), cells, 0, 0);
        FingerprintPart[] grown = Arrays.copyOf(parts, parts.length + 1);
        grown[parts.length] = created;
        Arrays.sort(grown, FingerprintBucket::compareStarts);
        parts = grown;
        return created;
    }

    /** The parts, ordered by where their cells start. */
    public List<FingerprintPart> parts() {
        return List.of(parts);
    }

    /** The part whose sections the page at {@code key} holds, or {@code null}: for reading a shard's pages by part. */
    public FingerprintPart partOfPage(long key) {
        for (FingerprintPart part : parts) {
            if (part.holdsPage(key)) {
                return part;
            }
        }
        return null;
    }

    /** The largest cell count of the parts: every other part's divides it. */
    public int largestCellCount() {
        int largest = 1;
        for (FingerprintPart part : parts) {
            largest = Math.max(largest, part.cellCount());
        }
        return largest;
    }

    @Override
    public StateFormat format() {
        return StateFormat.FINGERPRINTS;
    }

    /** The parts' planned capacities, summed: what the shard was planned to hold of this bucket. */
    @Override
    public long initialCapacity() {
        long capacity = 0;
        for (FingerprintPart part : parts) {
            capacity += part.sizing().capacityPerShard();
        }
        return capacity;
    }

    /** Distinct values held over the shard, exactly: the parts' bands and overflow. */
    @Override
    public long inserted() {
        long held = 0;
        for (FingerprintPart part : parts) {
            held += part.held();
        }
        return held;
    }

    /** The fullest part's values over its own planned capacity. */
    @Override
    public double loadFactor() {
        double fullest = 0;
        for (FingerprintPart part : parts) {
            fullest = Math.max(fullest, part.loadFactor());
        }
        return fullest;
    }

    /** The largest chance a fresh key meets in this bucket: that of its worst part. */
    @Override
    public double estimatedFpp() {
        double worst = 0;
        for (FingerprintPart part : parts) {
            worst = Math.max(worst, part.estimatedFpp());
        }
        return worst;
    }

    /** Distinct values in the parts' overflow bands. */
    public long overflowed() {
        long overflowed = 0;
        for (FingerprintPart part : parts) {
            overflowed += part.overflowed();
        }
        return overflowed;
    }

    /** The parts' open growth bands, counted full: what the shard state cap bounds. */
    @Override
    public long growthBytes() {
        long bytes = 0;
        for (FingerprintPart part : parts) {
            bytes += part.growthBytes();
        }
        return bytes;
    }

    @Override
    public FingerprintBucket copy() {
        FingerprintPart[] copies = new FingerprintPart[parts.length];
        for (int i = 0; i < parts.length; i++) {
            copies[i] = parts[i].copy();
        }
        return new FingerprintBucket(copies);
    }

    /** Orders parts by where their cells start, j / k, compared exactly. */
    private static int compareStarts(FingerprintPart a, FingerprintPart b) {
        return Long.compare((long) a.cellIndex() * b.cellCount(), (long) b.cellIndex() * a.cellCount());
    }

    private static void checkNestedAndDisjoint(FingerprintPart[] sorted) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("a fingerprint bucket needs at least one part");
        }
        int largest = 1;
        for (FingerprintPart part : sorted) {
            largest = Math.max(largest, part.cellCount());
        }
        for (int i = 0; i < sorted.length; i++) {
            FingerprintPart part = sorted[i];
            if (largest % part.cellCount() != 0) {
                throw new IllegalArgumentException("the parts' cells are not nested: " + part.cellCount() + " cells do not divide "
                        + largest + " (" + Arrays.toString(sorted) + ")");
            }
            // End of part i (j + 1) / k at or before the start of part i + 1, j' / k'.
            if (i + 1 < sorted.length) {
                FingerprintPart next = sorted[i + 1];
                if ((long) (part.cellIndex() + 1) * next.cellCount() > (long) next.cellIndex() * part.cellCount()) {
                    throw new IllegalArgumentException("parts overlap: cell " + part.cellIndex() + "/" + part.cellCount() + " and cell "
                            + next.cellIndex() + "/" + next.cellCount());
                }
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof FingerprintBucket && Arrays.equals(parts, ((FingerprintBucket) o).parts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(parts);
    }

    @Override
    public String toString() {
        return parts.length == 1 && parts[0].cellCount() == 1
                ? "FingerprintBucket{" + parts[0] + '}'
                : "FingerprintBucket{" + Arrays.toString(parts) + '}';
    }
}
