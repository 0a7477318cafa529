/**
 * The dedup state library: everything that decides what an impression's identity is and how it is
 * remembered, with no dependency on the Flink runtime (flink-core only, for {@code TypeSerializer}).
 *
 * <ul>
 *   <li>{@link io.impressiondedup.state.identity}: MD5 of the request id, truncated, plus the ad
 *       id; the two 64-bit probe hashes and the shard derive from that one digest.
 *   <li>{@link io.impressiondedup.state.bloom}: sizing, the blocked Bloom bitset addressed as pages,
 *       and the scalable (layered) filter that grows when traffic runs over plan.
 *   <li>{@link io.impressiondedup.state.fingerprints}: the opt-in state format near the information
 *       bound: per shard, pages of Elias-Fano coded fingerprints with one section per (bucket, band).
 *   <li>{@link io.impressiondedup.state.time}: event-time day buckets, retention, lateness.
 *   <li>{@link io.impressiondedup.state.serialization}: versioned Flink serializers for everything
 *       that is checkpointed.
 *   <li>{@link io.impressiondedup.state.plan}: the capacity planner behind the {@code plan} CLI.
 * </ul>
 */
package io.impressiondedup.state;
