package io.impressiondedup.testdata.verify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic, from the beginning to the end offsets found at start, with {@code
 * isolation.level=read_committed}: what a downstream consumer of the job would see. Under that
 * isolation the end offset is the last stable offset, so records of open transactions are not
 * waited for, and records of aborted ones are never returned.
 */
public final class TopicReader {

    private TopicReader() {}

    /** Passes every committed record of {@code topic} to {@code sink}; returns how many. */
    public static long readAll(String bootstrapServers, String topic, Map<String, String> clientProperties,
            Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(4 * 1024 * 1024));
        properties.putAll(clientProperties);
        long count = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalArgumentException("Topic " + topic + " does not exist on " + bootstrapServers);
            }
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            while (!reachedEnd(consumer, end)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
                        sink.accept(record);
                        count++;
                    }
                }
            }
        }
        return count;
    }

    /** The value of the record's last header named {@code name}, or {@code null} if it has none. */
    public static byte[] lastHeader(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : header.value();
    }

    private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), Duration.ofSeconds(30)) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
