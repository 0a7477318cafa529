/**
 * What the dedup operator's state is and what a restore must match. {@link
 * io.impressiondedup.operators.dedup.restore.DedupStateLayout} names every state the operator registers, for the operator
 * and the state tools alike; {@link io.impressiondedup.operators.dedup.restore.RestoreContract} reads, checks and rewrites
 * the operator-state entries (shard count, fingerprint secret check, dedup key, time options, lateness watermark), each
 * check in a class of its own that refuses a restore with a message naming the option to change.
 */
package io.impressiondedup.operators.dedup.restore;
