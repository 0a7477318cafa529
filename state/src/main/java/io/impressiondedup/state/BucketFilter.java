package io.impressiondedup.state;


/**
 * The metadata of one shard-bucket's filter, in either {@link StateFormat}: what its stored bits mean (the
 * fingerprint scheme, the plan it was sized from) and how full it is. The stored impressions themselves live in
 * pages of keyed state, read and written by the operator through the format's page store; this object is the
 * small part kept in the shard's directory ({@link BucketFilters}).
 *
 * <p>The figures here are what the gauges and {@code inspect} show for both formats ({@link FilterStatistics}).
 */
public interface BucketFilter {

    /** The format the bucket's impressions are stored in, fixed when the bucket was created. */
    StateFormat format();

    /** Unique impressions the bucket's filter was planned for in one shard (n0). */
    long initialCapacity();

    /** Impressions inserted: for the fingerprint format, exactly the distinct fingerprints it holds. */
    long inserted();

    /** {@link #inserted()} over {@link #initialCapacity()}: above 1, the traffic is over plan. */
    default double loadFactor() {
        return (double) inserted() / initialCapacity();
    }

    /**
     * The chance that a fresh impression is wrongly found in this bucket now, at its current fill: at most the
     * plan's FPP divided by the buckets a record consults, as long as the filter may grow.
     */
    double estimatedFpp();

    /**
     * Bytes the shard state cap bounds: a Bloom filter's layers beyond its first, a fingerprint bucket's open bands above
     * band 0 (each counted full).
     */
    long growthBytes();

    BucketFilter copy();
}
