/**
 * Reading and writing the dedup operator's savepoint state with the State Processor API, shared by every
 * verb: {@code DedupSavepoint} reads it, {@code DedupSavepointWriter} writes it, one {@code ShardEntry} per
 * (shard, bucket).
 */
package io.impressiondedup.tools.savepoint;
