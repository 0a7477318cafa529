package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the dedup operator says when a bucket filter outgrows its plan: every added layer and every capped insert is
 * counted, and the first of each is logged as a warning, so that traffic over plan (or concentrated on one shard)
 * shows in the log once, not once per record. Remembers, per subtask, the buckets already warned about for growth
 * and the (shard, bucket) pairs already warned about for the shard state cap; a dropped bucket is forgotten
 * ({@link #forget}), so a bucket of the same start in a later run of time warns again.
 *
 * <p>Only reached when an insert adds a layer or over-fills one, never on the per-record path of a filter within its
 * plan. The warnings are logged under the operator's name ({@link DedupOperator}): they describe its state, and that
 * is the category operators filter its log by.
 */
final class FilterGrowthWarnings {

    private static final Logger LOG = LoggerFactory.getLogger(DedupOperator.class);

    private final DedupPlan plan;
    private final TimeBuckets buckets;
    private final Counter filterExpansions;
    private final Counter cappedInsertions;
    private final Set<Long> bucketsWarnedAbout = new HashSet<>();
    private final Set<ShardBucket> capsWarnedAbout = new HashSet<>();

    FilterGrowthWarnings(DedupPlan plan, TimeBuckets buckets, Counter filterExpansions, Counter cappedInsertions) {
        this.plan = plan;
        this.buckets = buckets;
        this.filterExpansions = filterExpansions;
        this.cappedInsertions = cappedInsertions;
    }

    /** Counts every added layer (or opened band); warns once per bucket (per subtask), at the first shard that overflows. */
    void grew(int shard, long bucket, BucketFilter filter) {
        filterExpansions.inc();
        if (bucketsWarnedAbout.add(bucket)) {
            String growth;
            if (filter instanceof ScalableBloomFilter bloom) {
                growth = String.format(Locale.ROOT, "added a layer for %d more at FPP %s", bloom.layers().get(bloom.layerCount() - 1).capacity(),
                        bloom.layers().get(bloom.layerCount() - 1).fpp());
            } else {
                growth = "opened a fingerprint band (each band up to twice the one before, a few bits more per fingerprint)";
            }
            LOG.warn(
                    "Bucket {} of shard {} reached its planned capacity of {} unique impressions; {}. Traffic is over plan:"
                            + " the FPP stays within budget, but state grows. Other shards of this bucket will follow quietly"
                            + " (metric filter-expansions); raise the planned capacity if this is the new normal.",
                    Instant.ofEpochMilli(buckets.startOf(bucket)),
                    shard,
                    filter.initialCapacity(),
                    growth);
        } else {
            LOG.debug("Bucket {} of shard {} grew ({} impressions)", Instant.ofEpochMilli(buckets.startOf(bucket)), shard, filter.inserted());
        }
    }

    /** Counts an insert into a full layer that could not grow; warns once per shard and bucket. */
    void insertedPastCap(int shard, long bucket, BucketFilter bucketFilter) {
        cappedInsertions.inc();
        if (!capsWarnedAbout.add(new ShardBucket(shard, bucket))) {
            return;
        }
        if (bucketFilter instanceof FingerprintBucket fingerprints) {
            LOG.warn("Bucket {} of shard {} holds {} fingerprints, {}x its planned capacity of {} in its fullest part, and its next"
                            + " band would take this shard's fingerprint state past the shard state cap (--shard-state-cap {} x its"
                            + " planned state; or the bucket filled its last band). Further fingerprints of it go to its overflow"
                            + " sections, which never grow past the bucket's planned state: this shard keeps its size and drops unique"
                            + " impressions at a rate above the configured FPP, rising as they fill (gauge estimated-fpp); other shards"
                            + " are unaffected. Traffic this concentrated on one shard is one request id with very many ad ids, or ids"
                            + " crafted to meet in one shard (see --fingerprint-secret-file). Further capped inserts are counted in"
                            + " capped-insertions, not logged.",
                    Instant.ofEpochMilli(buckets.startOf(bucket)), shard, fingerprints.inserted(),
                    String.format(Locale.ROOT, "%.1f", fingerprints.loadFactor()), fingerprints.initialCapacity(), plan.shardStateCap());
            return;
        }
        ScalableBloomFilter filter = (ScalableBloomFilter) bucketFilter;
        long nextLayer = filter.nextLayerBytes();
        String why = nextLayer == Long.MAX_VALUE
                ? "its filter cannot add another layer (" + filter.layerCount() + " layers, the most one filter can hold or address)"
                : "a new layer of " + nextLayer + " bytes would take this shard's filters past the shard state cap of "
                        + plan.shardStateCapBytes() + " bytes (--shard-state-cap " + plan.shardStateCap() + " x its planned "
                        + plan.plannedBytesPerShard() + " bytes)";
        LOG.warn("Bucket {} of shard {} holds {} unique impressions, {}x its planned capacity of {}, and {}. It keeps its size:"
                        + " its newest layer over-fills, so this shard drops unique impressions at a rate above the configured FPP,"
                        + " rising as it fills (gauge estimated-fpp); other shards are unaffected. Traffic this concentrated on one"
                        + " shard is one request id with very many ad ids, or ids crafted to meet in one shard (see"
                        + " --fingerprint-secret-file). Further capped inserts are counted in capped-insertions, not logged.",
                Instant.ofEpochMilli(buckets.startOf(bucket)), shard, filter.inserted(),
                String.format(Locale.ROOT, "%.1f", filter.loadFactor()), filter.initialCapacity(), why);
    }

    /** Forgets a dropped bucket of a shard: a capped insert into a new filter of it warns again. */
    void forget(int shard, long bucket) {
        capsWarnedAbout.remove(new ShardBucket(shard, bucket));
    }

    /** A bucket of a shard, as a key of {@link #capsWarnedAbout}. */
    private record ShardBucket(int shard, long bucket) {}
}
