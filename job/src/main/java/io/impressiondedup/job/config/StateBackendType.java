package io.impressiondedup.job.config;

import io.impressiondedup.operators.dedup.store.PageCacheBudget;

/** The state backend the job runs on ({@code --state-backend}), by the name Flink's {@code state.backend.type} uses. */
public enum StateBackendType {
    /** State in embedded RocksDB, larger than memory; incremental checkpoints. The default. */
    ROCKSDB("rocksdb", 256, PageCacheBudget.shareOfTaskHeap()),
    /** State on the heap; full snapshots. */
    HASHMAP("hashmap", 2048, PageCacheBudget.ofBytes(0));

    private final String optionValue;
    private final int defaultPageBytes;
    private final PageCacheBudget defaultPageCacheBudget;

    StateBackendType(String optionValue, int defaultPageBytes, PageCacheBudget defaultPageCacheBudget) {
        this.optionValue = optionValue;
        this.defaultPageBytes = defaultPageBytes;
        this.defaultPageCacheBudget = defaultPageCacheBudget;
    }

    /**
     * Heap per subtask for the page cache when {@code --page-cache-bytes} is not given: on RocksDB, where
     * a hit saves a JNI read and write, three quarters of each slot's task heap ({@link PageCacheBudget}); none
     * on the heap, where state is objects already and the cache, which must keep its own copies there
     * (asynchronous snapshots), would hold every cached page twice.
     */
    public PageCacheBudget defaultPageCacheBudget() {
        return defaultPageCacheBudget;
    }

    /**
     * Bytes per Bloom state page when {@code --page-bytes} is not given: small on RocksDB, where every
     * record reads and writes one group of pages as a value; 2 KiB on the heap, where a page is updated
     * in place and fewer map entries keep the heap within 10% of the bits (bench/README).
     */
    public int defaultPageBytes() {
        return defaultPageBytes;
    }

    /** The option value, also Flink's {@code state.backend.type} name; Flink's configuration parses enums by it. */
    @Override
    public String toString() {
        return optionValue;
    }
}
