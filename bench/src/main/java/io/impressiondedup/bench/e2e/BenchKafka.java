package io.impressiondedup.bench.e2e;

import io.impressiondedup.testdata.KafkaTopics;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** The broker the benchmarks run against (its own JVM, started by the benchmark script), and its topics. */
final class BenchKafka implements AutoCloseable {

    final String bootstrapServers;
    private final Admin admin;

    BenchKafka(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.admin = Admin.create(properties);
    }

    /** Creates the topics and returns once every partition has a leader (a producer's first batches fail otherwise). */
    void create(Map<String, Integer> partitionsByTopic) throws Exception {
        KafkaTopics.create(admin, partitionsByTopic, Map.of());
    }

    /** Deletes topics (a benchmark's outputs), freeing their disk. */
    void delete(String... topics) throws Exception {
        admin.deleteTopics(List.of(topics)).all().get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        admin.close();
    }
}
