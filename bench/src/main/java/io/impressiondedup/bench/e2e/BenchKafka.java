package io.impressiondedup.bench.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

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
        List<NewTopic> topics = new ArrayList<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitionsByTopic.forEach((topic, partitions) -> {
            topics.add(new NewTopic(topic, partitions, (short) 1));
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
        });
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
                return;
            } catch (Exception notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Partitions of " + partitionsByTopic.keySet() + " have no leader after 60 s", notYet);
                }
                Thread.sleep(200);
            }
        }
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
