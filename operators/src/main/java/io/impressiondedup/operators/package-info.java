/**
 * The dedup operator and what it needs around it.
 *
 * <ul>
 *   <li>{@link io.impressiondedup.operators.model}: the records that flow through the job (the
 *       original Kafka record kept byte for byte, the parsed impression, the dead letter), with
 *       explicit serializers so nothing falls back to Kryo.
 *   <li>{@link io.impressiondedup.operators.dedup}: the keyed dedup operator, its settings and timers, with
 *       its parts in packages by purpose: {@code dedup.store} (each state format's pages and the page cache),
 *       {@code dedup.restore} (the state layout and what a restore must match), {@code dedup.metrics} and
 *       {@code dedup.keys} (shards as Flink keys).
 *   <li>{@link io.impressiondedup.operators.stats}: the reconciliation rows.
 * </ul>
 */
package io.impressiondedup.operators;
