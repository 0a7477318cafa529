package io.impressiondedup.testdata;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Topics of a single-node broker (the local run's, the tests', the benchmarks'), created ready to
 * be written to.
 */
public final class KafkaTopics {

    private KafkaTopics() {}

    /**
     * Creates topics with the given partition counts (replication factor 1) and topic configuration,
     * and returns once every partition's leader serves requests. Producing to a partition before its
     * leader is known makes an idempotent producer retry, and a retry right after creation has been
     * seen to desynchronize its sequence numbers with the broker (OutOfOrderSequenceException until
     * the delivery timeout).
     */
    public static void create(String bootstrapServers, Map<String, Integer> partitionsByTopic, Map<String, String> topicConfig)
            throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            create(admin, partitionsByTopic, topicConfig);
        }
    }

    /** {@link #create(String, Map, Map)} through an admin client the caller keeps. */
    public static void create(Admin admin, Map<String, Integer> partitionsByTopic, Map<String, String> topicConfig) throws Exception {
        List<NewTopic> topics = partitionsByTopic.entrySet().stream()
                .map(e -> new NewTopic(e.getKey(), e.getValue(), (short) 1).configs(topicConfig))
                .toList();
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!allPartitionsLed(admin, partitionsByTopic)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Partitions of " + partitionsByTopic.keySet() + " have no leader after 60 s");
            }
            Thread.sleep(50);
        }
    }

    private static Admin admin(String bootstrapServers) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return Admin.create(properties);
    }

    /**
     * Whether every partition is served by its leader: ListOffsets is answered by the leader's replica
     * manager, so unlike the metadata it fails until the broker has really taken leadership. Writes nothing.
     */
    private static boolean allPartitionsLed(Admin admin, Map<String, Integer> partitionsByTopic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitionsByTopic.forEach((topic, partitions) -> {
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
        });
        try {
            admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false; // no leader yet
        }
    }
}
