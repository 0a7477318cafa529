/**
 * The dedup operator and what it needs around it.
 *
 * <ul>
 *   <li>{@link io.impressiondedup.operators.model}: the records that flow through the job (the
 *       original Kafka record kept byte for byte, the parsed impression, the dead letter), with
 *       explicit serializers so nothing falls back to Kryo.
 *   <li>{@link io.impressiondedup.operators.dedup}: the keyed operator holding time-bucketed Bloom
 *       filters in keyed state, the shard key selector, and the operator's metrics.
 * </ul>
 */
package io.impressiondedup.operators;
