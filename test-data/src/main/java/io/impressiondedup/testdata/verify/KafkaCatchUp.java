package io.impressiondedup.testdata.verify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * When a running job has caught up with its input, as seen from Kafka alone: its consumer group
 * has committed offsets up to the input's end offsets, and no transaction is open on its output
 * topics. The job commits its group offsets on checkpoints, and its exactly-once sinks commit the
 * transactions of the same checkpoint in no particular order with them, hence both conditions:
 * only then does a {@code read_committed} reader see every record for the input so far.
 */
public final class KafkaCatchUp implements AutoCloseable {

    private final Admin admin;

    public KafkaCatchUp(String bootstrapServers, Map<String, String> clientProperties) {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.admin = Admin.create(properties);
    }

    /** Offsets the group has committed on {@code topic}, summed over its partitions (0 before the first commit). */
    public long committed(String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        long sum = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                sum += e.getValue().offset();
            }
        }
        return sum;
    }

    /** The end offsets of {@code topic}, summed over its partitions: the records written to it so far. */
    public long endOffset(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartition partition : partitions(topic)) {
            latest.put(partition, OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum();
    }

    /** Producers with a transaction open on any partition of {@code topics}. */
    public int openTransactions(Collection<String> topics) throws Exception {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            partitions.addAll(partitions(topic));
        }
        int open = 0;
        for (PartitionProducerState state : admin.describeProducers(partitions).all().get(30, TimeUnit.SECONDS).values()) {
            for (ProducerState producer : state.activeProducers()) {
                if (producer.currentTransactionStartOffset().isPresent()) {
                    open++;
                }
            }
        }
        return open;
    }

    /**
     * Waits until {@code group} has committed the input's end offsets (as of this call) and no
     * transaction is open on {@code outputTopics}.
     *
     * @throws TimeoutException naming how far the group got
     */
    public void await(String group, String inputTopic, Collection<String> outputTopics, Duration timeout) throws Exception {
        long end = endOffset(inputTopic);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long committed = committed(group, inputTopic);
            if (committed >= end && openTransactions(outputTopics) == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("After " + timeout.toSeconds() + " s, group " + group + " has committed " + committed + " of "
                        + end + " records of " + inputTopic + (committed >= end ? ", and transactions are still open on " + outputTopics : ""));
            }
            Thread.sleep(500);
        }
    }

    private List<TopicPartition> partitions(String topic) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicPartitionInfo info : description.partitions()) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        return partitions;
    }

    @Override
    public void close() {
        admin.close();
    }
}
