package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;

/**
 * What the dedup operator says when a bucket filter outgrows its plan: every added layer and every capped insert is
 * counted, and the first of each is logged as a warning, so that traffic over plan (or concentrated on one shard)
 * shows in the log once, not once per record. Remembers, per subtask, the buckets already warned about for growth
 * and the (shard, bucket) pairs already warned about for the shard state cap; a dropped bucket is forgotten
 * ({@link #forget}), so a bucket of the same start in a later run of time warns again.
 *
 * <p>Only reached when an insert adds a layer or over-fills one, never on the per-record path of a filter within its
 * plan. The warnings are logged under the operator's name (its logger is given): they describe its state, and that
 * is the category operators filter its log by.
 */
final class FilterGrowthWarnings {

    private final Logger log;

    private final TimeBuckets buckets;
    private final Counter filterExpansions;
    private final Counter cappedInsertions;
    private final Set<Long> bucketsWarnedAbout = new HashSet<>();
    private final Set<ShardBucket> capsWarnedAbout = new HashSet<>();

    /** @param log the operator's logger, which the warnings go to */
    FilterGrowthWarnings(Logger log, TimeBuckets buckets, Counter filterExpansions, Counter cappedInsertions) {
        this.log = log;
        this.buckets = buckets;
        this.filterExpansions = filterExpansions;
        this.cappedInsertions = cappedInsertions;
    }

    /** Counts every added layer (or opened band); warns once per bucket (per subtask), at the first shard that overflows. */
    void grew(int shard, long bucket, BucketFilter filter, FormatStores stores) {
        filterExpansions.inc();
        if (bucketsWarnedAbout.add(bucket)) {
            log.warn(
                    "Bucket {} of shard {} reached its planned capacity of {} unique impressions; {}. Traffic is over plan:"
                            + " the FPP stays within budget, but state grows. Other shards of this bucket will follow quietly"
                            + " (metric filter-expansions); raise the planned capacity if this is the new normal.",
                    Instant.ofEpochMilli(buckets.startOf(bucket)),
                    shard,
                    filter.initialCapacity(),
                    stores.of(filter).growth(filter));
        } else {
            log.debug("Bucket {} of shard {} grew ({} impressions)", Instant.ofEpochMilli(buckets.startOf(bucket)), shard, filter.inserted());
        }
    }

    /** Counts an insert into a full layer (or band) that could not grow; warns once per shard and bucket. */
    void insertedPastCap(int shard, long bucket, BucketFilter filter, FormatStores stores) {
        cappedInsertions.inc();
        if (!capsWarnedAbout.add(new ShardBucket(shard, bucket))) {
            return;
        }
        log.warn("Bucket {} of shard {} {}; other shards are unaffected. Traffic this concentrated on one shard is one request id"
                        + " with very many ad ids, or ids crafted to meet in one shard (see --fingerprint-secret-file). Further capped"
                        + " inserts are counted in capped-insertions, not logged.",
                Instant.ofEpochMilli(buckets.startOf(bucket)), shard, stores.of(filter).capped(filter));
    }

    /** Forgets a dropped bucket of a shard: a capped insert into a new filter of it warns again. */
    void forget(int shard, long bucket) {
        capsWarnedAbout.remove(new ShardBucket(shard, bucket));
    }

    /** A bucket of a shard, as a key of {@link #capsWarnedAbout}. */
    private record ShardBucket(int shard, long bucket) {}
}
