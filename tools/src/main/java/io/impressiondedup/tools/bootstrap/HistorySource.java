package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.kafka.ImpressionDeserializationSchema;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where a bootstrap reads its history: a file of rows or a Kafka topic, bounded. A topic is read committed
 * (the job's output is written in transactions: an aborted one holds no impression) from its earliest offsets
 * to the end offsets taken once, when this source is made, so the two passes of a bootstrap (newest timestamp,
 * then the state) read the same records, and records written meanwhile are not waited for.
 */
final class HistorySource {

    private final String file;
    private final FingerprintSecretFile secret;
    private final Instant minEventTime;
    private final String topic;
    private final String bootstrapServers;
    private final Map<String, String> kafkaProperties;
    private final ParserSettings parserSettings;
    private final int maxHeaders;
    private final Map<TopicPartition, Long> endOffsets;

    private HistorySource(String file, FingerprintSecretFile secret, Instant minEventTime, String topic, String bootstrapServers,
            Map<String, String> kafkaProperties, ParserSettings parserSettings, int maxHeaders, Map<TopicPartition, Long> endOffsets) {
        this.file = file;
        this.secret = secret;
        this.minEventTime = minEventTime;
        this.topic = topic;
        this.bootstrapServers = bootstrapServers;
        this.kafkaProperties = kafkaProperties;
        this.parserSettings = parserSettings;
        this.maxHeaders = maxHeaders;
        this.endOffsets = endOffsets;
    }

    static HistorySource ofFile(String file, FingerprintSecretFile secret, Instant minEventTime) {
        return new HistorySource(file, secret, minEventTime, null, null, null, null, 0, null);
    }

    /** A topic's history, its end offsets taken now; fails naming the topic if it does not exist. */
    static HistorySource ofTopic(String topic, String bootstrapServers, Map<String, String> kafkaProperties, ParserSettings parserSettings,
            int maxHeaders) {
        return new HistorySource(null, null, null, topic, bootstrapServers, kafkaProperties, parserSettings, maxHeaders,
                endOffsets(topic, bootstrapServers, kafkaProperties));
    }

    String describe() {
        if (file != null) {
            return "file " + file;
        }
        long records = 0;
        for (long end : endOffsets.values()) {
            records += end;
        }
        return "topic " + topic + " (" + endOffsets.size() + " partitions, end offsets summing to " + records + ", read committed)";
    }

    /** Whether the history is a file, which {@link #scanFile} scans in this JVM. */
    boolean isFile() {
        return file != null;
    }

    /**
     * The parts the file is read in by {@code threads} subtasks, found by one scan in this JVM with as many threads
     * ({@link HistoryFileParts}), which also reads the newest event time of its impressions if {@code findNewest} (the
     * rows {@link HistoryFileRows} takes: not the header, no bad row, none before {@code --min-event-time}). A Flink
     * job for that first pass read 20M rows in about 36 s, most of it digests and the shuffle; a scan needs neither.
     */
    HistoryFileParts scanFile(int threads, boolean findNewest) throws IOException {
        return HistoryFileParts.scan(file, minEventTime, HistoryFileParts.BY_SIZE, threads, findNewest);
    }

    /**
     * The history's impressions in {@code env}, those expired at {@code horizon} skipped ({@code null}: none); a file is
     * read in its {@code parts} ({@link #scanFile}) by as many subtasks as the rest of the job, each part's lines parsed
     * in the subtask that reads them.
     */
    DataStream<HistoryImpression> impressions(StreamExecutionEnvironment env, int shards, HistoryHorizon horizon, HistoryFileParts parts) {
        if (file != null) {
            return env.createInput(new NumberedLineInputFormat(file, parts), Types.POJO(NumberedLine.class))
                    .name("History file")
                    .flatMap(new HistoryFileRows(shards, horizon, secret, minEventTime)).name("History rows")
                    .returns(Types.POJO(HistoryImpression.class));
        }
        KafkaSource<ParsedRecord> source = KafkaSource.<ParsedRecord>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(topic)
                .setGroupId("dedup-tools-bootstrap")
                .setProperties(properties(kafkaProperties))
                .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .setProperty("commit.offsets.on.checkpoint", "false")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(endOffsets))
                .setDeserializer(new ImpressionDeserializationSchema(parserSettings, maxHeaders))
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "History topic " + topic)
                .flatMap(new HistoryTopicRecords(shards, horizon)).name("History records")
                .returns(Types.POJO(HistoryImpression.class));
    }

    private static Properties properties(Map<String, String> kafkaProperties) {
        Properties properties = new Properties();
        properties.putAll(kafkaProperties);
        return properties;
    }

    /** The read-committed end offsets (last stable offsets) of every partition of {@code topic}. */
    private static Map<TopicPartition, Long> endOffsets(String topic, String bootstrapServers, Map<String, String> kafkaProperties) {
        Properties properties = properties(kafkaProperties);
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, java.time.Duration.ofSeconds(60));
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalArgumentException("--" + BootstrapOptions.FROM_TOPIC.key() + " " + topic + ": no such topic on "
                        + bootstrapServers);
            }
            List<TopicPartition> topicPartitions = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            return new HashMap<>(consumer.endOffsets(topicPartitions, java.time.Duration.ofSeconds(60)));
        }
    }
}
