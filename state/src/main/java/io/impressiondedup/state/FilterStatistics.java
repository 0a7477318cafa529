package io.impressiondedup.state;

import io.impressiondedup.state.bloom.ScalableBloomFilter;

/**
 * The health figures of a set of shards' filters, from their metadata alone: what the operator's gauges
 * show per subtask and what {@code dedup-tools inspect} shows for a savepoint, computed here once so
 * the two always agree.
 *
 * <ul>
 *   <li>{@link #liveBuckets()}: shard-bucket filters held;
 *   <li>{@link #bloomBytes()}: the Bloom filters' bits at full size (pages are created lazily, so state may be
 *       smaller early in a bucket);
 *   <li>{@link #fingerprintBuckets()} and {@link #fingerprints()}: the shard-buckets in the fingerprint format and
 *       the distinct fingerprints they hold, exactly;
 *   <li>{@link #maxFillRatio()}: the fullest filter's inserts over its planned capacity (above 1 the
 *       traffic is over plan and layers are being added);
 *   <li>{@link #worstShardEstimatedFpp()}: for the worst shard, the summed estimated FPP of its live
 *       buckets, each layer at its current fill: the chance a new unique impression of that shard is
 *       wrongly dropped now.
 * </ul>
 *
 * <p>Add shards with {@link #add}; {@link #merge} combines the figures of disjoint sets of shards (the
 * subtasks of a job): counts and bytes add up, fill and FPP take the maximum.
 */
public final class FilterStatistics {

    private int liveBuckets;
    private long bloomBytes;
    private int fingerprintBuckets;
    private long fingerprints;
    private double maxFillRatio;
    private double worstShardEstimatedFpp;

    /** Adds one shard's directory ({@code null}: a shard without state). */
    public FilterStatistics add(BucketFilters shard) {
        if (shard == null) {
            return this;
        }
        double shardFpp = 0;
        for (int i = 0; i < shard.size(); i++) {
            BucketFilter filter = shard.filterAt(i);
            liveBuckets++;
            if (filter instanceof ScalableBloomFilter) {
                bloomBytes += ((ScalableBloomFilter) filter).bytes();
            } else {
                fingerprintBuckets++;
                fingerprints += filter.inserted();
            }
            maxFillRatio = Math.max(maxFillRatio, filter.loadFactor());
            shardFpp += filter.estimatedFpp();
        }
        worstShardEstimatedFpp = Math.max(worstShardEstimatedFpp, shardFpp);
        return this;
    }

    /** The figures of the shards of {@code shards} (nulls skipped). */
    public static FilterStatistics of(BucketFilters[] shards) {
        FilterStatistics statistics = new FilterStatistics();
        for (BucketFilters shard : shards) {
            statistics.add(shard);
        }
        return statistics;
    }

    /** Adds the figures of another, disjoint set of shards. */
    public FilterStatistics merge(FilterStatistics other) {
        liveBuckets += other.liveBuckets;
        bloomBytes += other.bloomBytes;
        fingerprintBuckets += other.fingerprintBuckets;
        fingerprints += other.fingerprints;
        maxFillRatio = Math.max(maxFillRatio, other.maxFillRatio);
        worstShardEstimatedFpp = Math.max(worstShardEstimatedFpp, other.worstShardEstimatedFpp);
        return this;
    }

    public int liveBuckets() {
        return liveBuckets;
    }

    public long bloomBytes() {
        return bloomBytes;
    }

    public int fingerprintBuckets() {
        return fingerprintBuckets;
    }

    public long fingerprints() {
        return fingerprints;
    }

    public double maxFillRatio() {
        return maxFillRatio;
    }

    public double worstShardEstimatedFpp() {
        return worstShardEstimatedFpp;
    }

    @Override
    public String toString() {
        return "FilterStatistics{liveBuckets=" + liveBuckets + ", bloomBytes=" + bloomBytes + ", fingerprintBuckets=" + fingerprintBuckets
                + ", fingerprints=" + fingerprints + ", maxFillRatio=" + maxFillRatio
                + ", worstShardEstimatedFpp=" + worstShardEstimatedFpp + '}';
    }
}
