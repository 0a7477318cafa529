package io.impressiondedup.job.config;

/** The state backend the job runs on ({@code --state-backend}), by the name Flink's {@code state.backend.type} uses. */
public enum StateBackendType {
    /** State in embedded RocksDB, larger than memory; incremental checkpoints. The default. */
    ROCKSDB("rocksdb", 256),
    /** State on the heap; full snapshots. */
    HASHMAP("hashmap", 2048);

    private final String optionValue;
    private final int defaultPageBytes;

    StateBackendType(String optionValue, int defaultPageBytes) {
        this.optionValue = optionValue;
        this.defaultPageBytes = defaultPageBytes;
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
