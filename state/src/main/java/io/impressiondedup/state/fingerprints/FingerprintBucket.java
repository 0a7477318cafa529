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
 * <p><b>No shard state cap.</b> Unlike a Bloom filter, whose size is fixed per layer, the store grows by about
 * 15-20 bits per entry whatever the load, so memory follows the impressions inserted; the FPP promise holds up to
 * the last band ({@link FingerprintStoreSizing#maxBand()}, 2^15 times the plan at least) and rises linearly
 * past it ({@link Insertion#OVER_FILLED}). Mutable only through {@link #recordInsert()}; not thread-safe.
 */
public final class FingerprintBucket implements BucketFilter {

    private final FingerprintScheme fingerprintScheme;
    private final FingerprintStoreSizing sizing;
    private long inserted;

    public FingerprintBucket(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing, long inserted) {
        this.fingerprintScheme = Objects.requireNonNull(fingerprintScheme, "fingerprintScheme");
        this.sizing = Objects.requireNonNull(sizing, "sizing");
        if (inserted < 0) {
            throw new IllegalArgumentException("inserted must not be negative, but was " + inserted);
        }
        this.inserted = inserted;
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
        return new FingerprintBucket(fingerprintScheme, sizing, inserted);
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
        return inserted == that.inserted && fingerprintScheme.equals(that.fingerprintScheme) && sizing.equals(that.sizing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fingerprintScheme, sizing, inserted);
    }

    @Override
    public String toString() {
        return "FingerprintBucket{" + fingerprintScheme + ", " + sizing + ", inserted=" + inserted + '}';
    }
}
