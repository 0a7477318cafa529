/**
 * A savepoint's dedup state rewritten for another shard count ({@code dedup-tools reshape}): {@link
 * io.impressiondedup.state.reshape.ShardReshape} holds the rules, checks a whole savepoint's directories before anything
 * is written, and moves each page.
 */
package io.impressiondedup.state.reshape;
