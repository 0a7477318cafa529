package io.impressiondedup.operators.dedup;

import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/** The state backends every operator behaviour is checked on. */
enum Backend {
    HASHMAP {
        @Override
        StateBackend create() {
            return new HashMapStateBackend();
        }
    },
    ROCKSDB {
        @Override
        StateBackend create() {
            return new EmbeddedRocksDBStateBackend();
        }
    };

    abstract StateBackend create();
}
