/**
 * Reading and writing the dedup operator's savepoint state with the State Processor API, shared by every
 * verb: {@code DedupSavepoint} reads it, {@code DedupSavepointWriter} writes it, one {@code ShardEntry} per
 * (shard, bucket). Every reader and writer runs watched ({@code WatchedStateReader}, {@code WatchedStateWriter}):
 * what it throws reaches the tool through {@code StateFunctionReports}, which Flink alone does not guarantee.
 */
package io.impressiondedup.tools.savepoint;
