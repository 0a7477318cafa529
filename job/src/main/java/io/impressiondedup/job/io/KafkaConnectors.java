package io.impressiondedup.job.io;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * The job's Kafka source and sinks, built from its configuration. Every client gets the {@code
 * --kafka.*} properties (security and so on); the job's own settings win where they must.
 */
public final class KafkaConnectors {

    public static final String SOURCE_UID = "kafka-impressions-source";
    public static final String SOURCE_NAME = "Kafka impressions";
    public static final String OUTPUT_SINK_UID = "kafka-output-sink";
    public static final String DEAD_LETTER_SINK_UID = "kafka-dead-letter-sink";
    public static final String DUPLICATES_SINK_UID = "kafka-duplicates-sink";

    private KafkaConnectors() {}

    public static KafkaSource<ParsedRecord> source(DedupJobConfig config) {
        KafkaSourceBuilder<ParsedRecord> builder = KafkaSource.<ParsedRecord>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setTopics(config.inputTopic())
                .setGroupId(groupId(config))
                .setClientIdPrefix(groupId(config))
                .setStartingOffsets(startingOffsets(config))
                .setDeserializer(new ImpressionDeserializationSchema(config.parserSettings()))
                .setProperties(clientProperties(config))
                // Input produced transactionally is read only once committed.
                .setProperty("isolation.level", "read_committed")
                .setProperty("commit.offsets.on.checkpoint", "true");
        if (config.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        } else {
            builder.setProperty("partition.discovery.interval.ms", "60000");
        }
        return builder.build();
    }

    public static KafkaSink<Impression> outputSink(DedupJobConfig config) {
        return sink(config, config.outputTopic(), "-output", new KafkaRecords.Unchanged(config.outputTopic()));
    }

    public static KafkaSink<DeadLetter> deadLetterSink(DedupJobConfig config) {
        return sink(config, config.dlqTopic(), "-dlq", new KafkaRecords.DeadLetters(config.dlqTopic()));
    }

    public static KafkaSink<Impression> duplicatesSink(DedupJobConfig config, String topic) {
        return sink(config, topic, "-duplicates", new KafkaRecords.Unchanged(topic));
    }

    private static <T> KafkaSink<T> sink(DedupJobConfig config, String topic, String idSuffix, KafkaRecordSerializationSchema<T> serializer) {
        Properties producer = clientProperties(config);
        producer.setProperty("transaction.timeout.ms", Long.toString(config.transactionTimeout().toMillis()));
        producer.setProperty("compression.type", producer.getProperty("compression.type", "lz4"));
        producer.setProperty("max.request.size", producer.getProperty("max.request.size", Integer.toString(2 * 1024 * 1024)));
        return KafkaSink.<T>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(config.delivery())
                // One prefix per sink: two sinks sharing transactional ids would fence each other.
                .setTransactionalIdPrefix(transactionalIdPrefix(config) + idSuffix)
                // Reuses a small pool of transactional ids instead of one per checkpoint and subtask.
                .setTransactionNamingStrategy(TransactionNamingStrategy.POOLING)
                .build();
    }

    private static OffsetsInitializer startingOffsets(DedupJobConfig config) {
        switch (config.startingOffsets()) {
            case EARLIEST:
                return OffsetsInitializer.earliest();
            case LATEST:
                return OffsetsInitializer.latest();
            case COMMITTED:
                return OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            default:
                throw new IllegalStateException("Unknown starting offsets " + config.startingOffsets());
        }
    }

    static Properties clientProperties(DedupJobConfig config) {
        Properties properties = new Properties();
        properties.putAll(config.kafkaProperties());
        return properties;
    }

    private static String groupId(DedupJobConfig config) {
        return config.groupId();
    }

    private static String transactionalIdPrefix(DedupJobConfig config) {
        return config.transactionalIdPrefix();
    }
}
