/**
 * The impressions the dedup operator has stored, in keyed state: one {@link
 * io.impressiondedup.operators.dedup.store.FormatStore} per state format (the Bloom format's page groups, the
 * fingerprint format's pages), picked by a bucket's format in one place ({@link
 * io.impressiondedup.operators.dedup.store.FormatStores}); the lookup and insert of one record over its shard's buckets
 * ({@link io.impressiondedup.operators.dedup.store.ShardFilters}, shared by the operator and the {@code bootstrap} tool,
 * so both build the same state); and the bounded write-back page cache on the heap in front of RocksDB with its budget.
 */
package io.impressiondedup.operators.dedup.store;
