package io.impressiondedup.job.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.RocksDB;

class RocksDbDefaultsTest {

    static final String[] ARGS = {"--bootstrap-servers", "broker:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq", "--capacity", "1000000"};

    static Configuration jobConfiguration(Configuration cluster, String... extra) {
        String[] args = Stream.concat(Arrays.stream(ARGS), Arrays.stream(extra)).toArray(String[]::new);
        return DedupJob.flinkConfiguration(DedupJobConfig.fromSources(args, cluster), cluster);
    }

    @Test
    void onAClusterConfiguredByFlinksDefaultsTheJobTurnsBloomFiltersOnAndLeavesCompressionAsFlinkHasIt() {
        Configuration job = jobConfiguration(new Configuration());

        assertThat(job.getOptional(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).contains(true);
        assertThat(job.getOptional(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL)).isEmpty();
    }

    @Test
    void onAClusterConfiguredByFlinksDefaultsTheJobCompactsLevelZeroAtItsOwnTrigger() {
        Configuration job = jobConfiguration(new Configuration());

        assertThat(job.getOptional(RocksDBOptions.OPTIONS_FACTORY)).contains(RocksDbCompactionOptions.class.getName());
    }

    @Test
    void aClusterThatNamesItsOwnOptionsFactoryKeepsIt() {
        Configuration cluster = new Configuration();
        cluster.set(RocksDBOptions.OPTIONS_FACTORY, "com.example.TunedOptions");

        Configuration job = jobConfiguration(cluster);

        assertThat(job.getOptional(RocksDBOptions.OPTIONS_FACTORY)).isEmpty();
    }

    @Test
    void theCompactionOptionsKeepRocksDbsDistancesFromTheTriggerToTheWriteStalls() {
        RocksDB.loadLibrary();
        try (ColumnFamilyOptions options = new ColumnFamilyOptions()) {
            int rocksDbTrigger = options.level0FileNumCompactionTrigger();
            int rocksDbSlowdown = options.level0SlowdownWritesTrigger();
            int rocksDbStop = options.level0StopWritesTrigger();

            ColumnFamilyOptions set = new RocksDbCompactionOptions().createColumnOptions(options, new ArrayList<>());

            assertThat(set.level0FileNumCompactionTrigger()).isEqualTo(RocksDbCompactionOptions.LEVEL0_FILES_TO_COMPACT).isEqualTo(8);
            assertThat(set.level0SlowdownWritesTrigger() - set.level0FileNumCompactionTrigger()).isEqualTo(rocksDbSlowdown - rocksDbTrigger);
            assertThat(set.level0StopWritesTrigger() - set.level0FileNumCompactionTrigger()).isEqualTo(rocksDbStop - rocksDbTrigger);
        }
    }

    @Test
    void anOptionTheClusterSetsIsLeftToTheCluster() {
        Configuration cluster = new Configuration();
        cluster.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, false);

        Configuration job = jobConfiguration(cluster);

        assertThat(job.getOptional(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).isEmpty();
    }

    @Test
    void aJobOnTheHeapSetsNoRocksDbOption() {
        Configuration job = jobConfiguration(new Configuration(), "--state-backend", "hashmap");

        assertThat(job.keySet()).noneMatch(key -> key.startsWith("state.backend.rocksdb."));
    }
}
