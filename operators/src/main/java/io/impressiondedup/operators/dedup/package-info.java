/**
 * The dedup operator ({@link io.impressiondedup.operators.dedup.DedupOperator}): the per-record decision (duplicate,
 * unique, late) and its timers, with what it alone uses: its settings ({@code DedupSettings}), the late policy, the
 * expiry and safety timers of the buckets ({@code BucketExpiry}), the cache of the shards' bucket directories and the
 * warnings a bucket's growth raises.
 *
 * <p>Its parts live in packages by purpose, each used from here and from the state tools:
 * <ul>
 *   <li>{@link io.impressiondedup.operators.dedup.store}: the stored impressions, one store per state format behind one
 *       interface, the lookup and insert of a record over a shard's buckets, and the page cache;
 *   <li>{@link io.impressiondedup.operators.dedup.restore}: the names of the operator's state and the operator-state
 *       entries a restore is checked against (shard count, secret, dedup key, time options);
 *   <li>{@link io.impressiondedup.operators.dedup.metrics}: the counters, gauges and accumulators;
 *   <li>{@link io.impressiondedup.operators.dedup.keys}: shards as Flink keys, one shard per key group.
 * </ul>
 */
package io.impressiondedup.operators.dedup;
