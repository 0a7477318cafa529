/**
 * Shards as Flink keys: one key per shard, chosen so that shard s lands in key group s (mod max parallelism) and the
 * shards spread evenly over the subtasks at any parallelism ({@link io.impressiondedup.operators.dedup.keys.ShardKeys}), and the
 * key selector that routes an impression to its shard's key.
 */
package io.impressiondedup.operators.dedup.keys;
