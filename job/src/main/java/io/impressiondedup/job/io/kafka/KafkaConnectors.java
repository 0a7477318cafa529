package io.impressiondedup.job.io.kafka;

import io.impressiondedup.job.config.ConsumerDefaults;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ProducerDefaults;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    public static final String STATS_SINK_UID = "kafka-stats-sink";
    public static final String STATS_SINK_NAME = "Kafka reconciliation stats";

    /** Appended to the transactional-id prefix, one per sink: two sinks sharing transactional ids would fence each other. */
    public static final String OUTPUT_ID_SUFFIX = "-output";
    public static final String DEAD_LETTER_ID_SUFFIX = "-dlq";
    public static final String DUPLICATES_ID_SUFFIX = "-duplicates";
    public static final String STATS_ID_SUFFIX = "-stats";

    static final String MAX_REQUEST_SIZE = ProducerDefaults.MAX_REQUEST_SIZE;
    /** The producers' {@code max.request.size} unless {@code kafka.max.request.size} is given (Kafka's own default is 1 MiB). */
    static final int DEFAULT_MAX_REQUEST_SIZE = ProducerDefaults.DEFAULT_MAX_REQUEST_SIZE;
    /** Below this, a dead letter's own headers (reason, error, source position, hash) could not fit. */
    static final int MIN_DEAD_LETTER_BYTES = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnectors.class);

    private KafkaConnectors() {}

    public static KafkaSource<ParsedRecord> source(DedupJobConfig config) {
        KafkaSourceBuilder<ParsedRecord> builder = KafkaSource.<ParsedRecord>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setTopics(config.inputTopic())
                .setGroupId(groupId(config))
                .setClientIdPrefix(groupId(config))
                .setStartingOffsets(startingOffsets(config))
                .setDeserializer(new ImpressionDeserializationSchema(config.parserSettings(), config.maxHeaders()))
                .setProperties(consumerProperties(config))
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

    public static AdminReleasingKafkaSink<Impression> outputSink(DedupJobConfig config) {
        return sink(config, config.outputTopic(), OUTPUT_ID_SUFFIX, new KafkaRecords.Unchanged(config.outputTopic()));
    }

    /**
     * The dead-letter sink for a topic that takes records of up to {@code topicMaxMessageBytes} (its {@code
     * max.message.bytes}, which the submission checks read from the brokers), its records sized to fit.
     */
    public static AdminReleasingKafkaSink<DeadLetter> deadLetterSink(DedupJobConfig config, int topicMaxMessageBytes) {
        return sink(config, config.dlqTopic(), DEAD_LETTER_ID_SUFFIX, deadLetterSerializer(config, topicMaxMessageBytes));
    }

    /**
     * The dead-letter serializer: dead letters up to {@link #deadLetterMaxBytes} of the topic's limit
     * and the producer's {@code max.request.size}; larger ones are truncated ({@link DeadLetterHeaders}).
     */
    static KafkaRecords.DeadLetters deadLetterSerializer(DedupJobConfig config, int topicMaxMessageBytes) {
        int producerMax = producerMaxRequestSize(config);
        int maxBytes = deadLetterMaxBytes(topicMaxMessageBytes, producerMax);
        if (maxBytes < MIN_DEAD_LETTER_BYTES) {
            throw new InvalidOptionException("--" + DedupJobOptions.DLQ_TOPIC.key() + " " + config.dlqTopic() + " takes records of "
                    + topicMaxMessageBytes + " bytes (max.message.bytes) and the producer sends up to " + producerMax
                    + " (" + DedupJobOptions.KAFKA_PREFIX + MAX_REQUEST_SIZE + "): too little for a dead letter's own headers."
                    + " Raise the smaller to at least " + (2 * MIN_DEAD_LETTER_BYTES) + ".");
        }
        LOG.info("Dead letters to {} are truncated beyond {} bytes (topic max.message.bytes {}, producer {} {}, minus a safety margin)",
                config.dlqTopic(), maxBytes, topicMaxMessageBytes, MAX_REQUEST_SIZE, producerMax);
        return new KafkaRecords.DeadLetters(config.dlqTopic(), maxBytes);
    }

    /**
     * The largest dead letter to write, as Kafka's producer counts a record ({@code
     * KafkaRecords.sizeUpperBound}): the smaller of the topic's and the producer's limit, minus 1 KiB
     * and 1/128 of it. The producer checks its limit on exactly that count; the brokers check the
     * topic's on the batch as written, compressed, which for incompressible bytes can be slightly
     * larger (LZ4, zstd, gzip and Snappy frames add well under 1%).
     */
    public static int deadLetterMaxBytes(int topicMaxMessageBytes, int producerMaxRequestSize) {
        int limit = Math.min(topicMaxMessageBytes, producerMaxRequestSize);
        return limit - (1024 + limit / 128);
    }

    /** The producers' {@code max.request.size}: {@code kafka.max.request.size}, else the job's default, 2 MiB. */
    static int producerMaxRequestSize(DedupJobConfig config) {
        String given = config.kafkaProperties().get(MAX_REQUEST_SIZE);
        if (given == null) {
            return DEFAULT_MAX_REQUEST_SIZE;
        }
        try {
            return Integer.parseInt(given.trim());
        } catch (NumberFormatException e) {
            throw new InvalidOptionException("Invalid value '" + given + "' for --" + DedupJobOptions.KAFKA_PREFIX + MAX_REQUEST_SIZE
                    + ": expected a number of bytes", e);
        }
    }

    public static AdminReleasingKafkaSink<Impression> duplicatesSink(DedupJobConfig config, String topic) {
        return sink(config, topic, DUPLICATES_ID_SUFFIX, new KafkaRecords.Unchanged(topic));
    }

    /** The reconciliation rows' sink ({@link StatsRows}), with the job's delivery guarantee and a transactional-id prefix of its own. */
    public static AdminReleasingKafkaSink<io.impressiondedup.operators.stats.StatsRow> statsSink(DedupJobConfig config, String topic) {
        return sink(config, topic, STATS_ID_SUFFIX, new StatsRows(topic));
    }

    /** The source's consumer properties: the job's {@code kafka.*} properties, and {@link ConsumerDefaults} where the user gave none. */
    public static Properties consumerProperties(DedupJobConfig config) {
        Properties consumer = clientProperties(config);
        ConsumerDefaults.applyTo(consumer);
        return consumer;
    }

    /**
     * The sinks' producer properties: the job's {@code kafka.*} properties, the transaction timeout, and
     * {@link ProducerDefaults} where the user gave none (a max.request.size given is checked to be a number).
     */
    static Properties producerProperties(DedupJobConfig config) {
        Properties producer = clientProperties(config);
        producer.setProperty("transaction.timeout.ms", Long.toString(config.transactionTimeout().toMillis()));
        producer.setProperty(MAX_REQUEST_SIZE, Integer.toString(producerMaxRequestSize(config)));
        ProducerDefaults.applyTo(producer);
        return producer;
    }

    /** The connector's sink with the job's settings, releasing the admin client its exactly-once writers open ({@link AdminReleasingKafkaSink}). */
    private static <T> AdminReleasingKafkaSink<T> sink(DedupJobConfig config, String topic, String idSuffix,
            KafkaRecordSerializationSchema<T> serializer) {
        return new AdminReleasingKafkaSink<>(KafkaSink.<T>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setKafkaProducerConfig(producerProperties(config))
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(config.delivery())
                // One prefix per sink: two sinks sharing transactional ids would fence each other.
                .setTransactionalIdPrefix(transactionalIdPrefix(config) + idSuffix)
                // Reuses a small pool of transactional ids instead of one per checkpoint and subtask.
                .setTransactionNamingStrategy(TransactionNamingStrategy.POOLING)
                .build());
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
