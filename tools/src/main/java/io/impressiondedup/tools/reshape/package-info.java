/**
 * {@code dedup-tools reshape}: a savepoint rewritten for another shard count, offline.
 */
package io.impressiondedup.tools.reshape;
