package io.impressiondedup.tools.inspect;

import io.impressiondedup.tools.savepoint.ShardEntry;

/**
 * What the inspect job reports of one shard: its bucket directory (for the job-wide {@code FilterStatistics}),
 * the figures of each of its filters (statistics mode) and the verdicts of its queries (query mode). One per
 * shard with state, a few hundred bytes: what leaves the State Processor API job, never the pages.
 */
public final class ShardInspection {

    public int shard;
    /** The directory in {@code BucketFiltersSerializer} form, as {@link ShardEntry#directory()} reads it. */
    public byte[] directory;
    public BucketFigures[] buckets;
    public QueryVerdict[] verdicts;

    public ShardInspection() {}
}
