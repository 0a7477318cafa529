package io.impressiondedup.state.fingerprints;

/**
 * The value range U of each (bucket, band) section: what a lookup maps its hash into before it asks the
 * section. Kept per bucket by whoever owns the buckets (the sizing may change between buckets, e.g. a new
 * capacity), so a page need not store it; {@link FingerprintStoreSizing} answers it for buckets of one plan.
 */
public interface ValueRanges {

    /** U of {@code bucket}'s band {@code band}: the section's values lie in {@code [0, U)}. */
    long valueRange(long bucket, int band);
}
