package io.impressiondedup.job.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.junit.jupiter.api.Test;

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
