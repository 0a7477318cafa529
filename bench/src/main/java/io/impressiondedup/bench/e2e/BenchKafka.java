package io.impressiondedup.bench.e2e;

import io.impressiondedup.testdata.KafkaTopics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** The broker the benchmarks run against (its own JVM, started by the benchmark script), and its topics. */
final class BenchKafka implements AutoCloseable {

    final String bootstrapServers;
    /** Per topic, a latest-offset query of every partition, for {@link #endOffsets}: described once. */
    private final Map<String, Map<TopicPartition, OffsetSpec>> latestOffsetSpecs = new HashMap<>();
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

    /** The sum of the topic's end offsets (read_uncommitted: records written, committed or not, and transaction markers). */
    long endOffsets(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = latestOffsetSpecs.computeIfAbsent(topic, this::latestOfEveryPartition);
        long sum = 0;
        for (var info : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
            sum += info.offset();
        }
        return sum;
    }

    private Map<TopicPartition, OffsetSpec> latestOfEveryPartition(String topic) {
        try {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return latest;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot describe topic " + topic, e);
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
