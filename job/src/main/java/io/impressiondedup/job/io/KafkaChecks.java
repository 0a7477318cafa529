package io.impressiondedup.job.io;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks made against the brokers before the job is submitted, so that what Kafka would reject once
 * the job runs (and the job would then restart over and over) fails now with a message naming the
 * option. A check the brokers cannot answer (unreachable, no permission to describe) is logged as a
 * warning and left to Kafka.
 */
public final class KafkaChecks {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaChecks.class);
    static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";
    static final String TOPIC_MAX_MESSAGE_BYTES = "max.message.bytes";
    /**
     * What the dead letters are sized for when the brokers cannot tell the dead-letter topic's {@value
     * #TOPIC_MAX_MESSAGE_BYTES}: 1 MiB, just under Kafka's default (1 MiB + 12 bytes), so safe on a
     * topic left at the default and rarely too small elsewhere.
     */
    public static final int DEFAULT_TOPIC_MAX_MESSAGE_BYTES = 1024 * 1024;

    private KafkaChecks() {}

    /** Every topic the job reads or writes exists, and the sinks' transaction timeout is one the brokers accept. */
    public static void checkBrokers(DedupJobConfig config) {
        try (Admin admin = Admin.create(adminProperties(config))) {
            checkTopicsExist(admin, config);
            if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
                Long brokerMax;
                try {
                    brokerMax = brokerMaxTransactionTimeout(admin);
                } catch (Exception e) {
                    LOG.warn("Could not read the brokers' {} ({}); not checking --{} against it", BROKER_MAX_TIMEOUT, e.toString(),
                            DedupJobOptions.TRANSACTION_TIMEOUT.key());
                    return;
                }
                checkTransactionTimeout(config.transactionTimeout(), brokerMax);
            }
        }
    }

    /**
     * The dead-letter topic's {@value #TOPIC_MAX_MESSAGE_BYTES} (its own, or the brokers' default it
     * inherits): the largest record batch the brokers take on it, which the dead letters are sized to
     * fit ({@link KafkaConnectors#deadLetterSink}). If the brokers cannot tell (unreachable, no
     * permission to describe configurations, topic missing), a warning and {@link
     * #DEFAULT_TOPIC_MAX_MESSAGE_BYTES}.
     */
    public static int deadLetterTopicMaxMessageBytes(DedupJobConfig config) {
        try (Admin admin = Admin.create(adminProperties(config))) {
            return topicMaxMessageBytes(admin, config.dlqTopic());
        } catch (Exception e) {
            LOG.warn("Could not read {} of --{} {} ({}); sizing dead letters for {} bytes", TOPIC_MAX_MESSAGE_BYTES,
                    DedupJobOptions.DLQ_TOPIC.key(), config.dlqTopic(), e.getCause() != null ? e.getCause().toString() : e.toString(),
                    DEFAULT_TOPIC_MAX_MESSAGE_BYTES);
            return DEFAULT_TOPIC_MAX_MESSAGE_BYTES;
        }
    }

    static int topicMaxMessageBytes(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
        ConfigEntry entry = config == null ? null : config.get(TOPIC_MAX_MESSAGE_BYTES);
        if (entry == null || entry.value() == null) {
            throw new IllegalStateException("the brokers did not report it");
        }
        return Integer.parseInt(entry.value());
    }

    /**
     * Topics are not created by the job: the exactly-once sinks fail on a missing topic (they look
     * for its open transactions at start), and a topic auto-created by a first write would get the
     * brokers' default partition count and retention, rarely what a production topic needs.
     */
    static void checkTopicsExist(Admin admin, DedupJobConfig config) {
        Map<String, ConfigOption<String>> topics = new LinkedHashMap<>();
        topics.put(config.inputTopic(), DedupJobOptions.INPUT_TOPIC);
        topics.put(config.outputTopic(), DedupJobOptions.OUTPUT_TOPIC);
        topics.put(config.dlqTopic(), DedupJobOptions.DLQ_TOPIC);
        config.duplicatesTopic().ifPresent(t -> topics.put(t, DedupJobOptions.DUPLICATES_TOPIC));
        Map<String, KafkaFuture<?>> described = new LinkedHashMap<>(admin.describeTopics(topics.keySet()).topicNameValues());
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, KafkaFuture<?>> topic : described.entrySet()) {
            try {
                topic.getValue().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    missing.add("--" + topics.get(topic.getKey()).key() + " '" + topic.getKey() + "'");
                } else {
                    LOG.warn("Could not describe topic {} ({}); not checking that it exists", topic.getKey(), e.getCause().toString());
                }
            } catch (Exception e) {
                LOG.warn("Could not describe topic {} ({}); not checking that it exists", topic.getKey(), e.toString());
            }
        }
        if (!missing.isEmpty()) {
            throw new InvalidOptionException("Kafka topics missing on " + config.bootstrapServers() + ": " + String.join(", ", missing)
                    + ". Create them before starting the job: the exactly-once sinks need them to exist, and a topic"
                    + " auto-created by a first write gets the brokers' default partitions and retention.");
        }
    }

    static void checkTransactionTimeout(Duration transactionTimeout, Long brokerMaxMillis) {
        if (brokerMaxMillis != null && transactionTimeout.toMillis() > brokerMaxMillis) {
            throw new InvalidOptionException("--" + DedupJobOptions.TRANSACTION_TIMEOUT.key() + " " + transactionTimeout.toSeconds()
                    + "s exceeds the brokers' " + BROKER_MAX_TIMEOUT + " (" + brokerMaxMillis / 1000 + "s): lower it, or raise"
                    + " the broker setting; the exactly-once sinks could not start otherwise.");
        }
    }

    static Properties adminProperties(DedupJobConfig config) {
        Properties properties = new Properties();
        properties.putAll(config.kafkaProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return properties;
    }

    private static Long brokerMaxTransactionTimeout(Admin admin) throws Exception {
        Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
        Long smallest = null;
        for (Node node : nodes) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS);
            ConfigEntry entry = configs.get(broker).get(BROKER_MAX_TIMEOUT);
            if (entry != null && entry.value() != null) {
                long value = Long.parseLong(entry.value());
                smallest = smallest == null ? value : Math.min(smallest, value);
            }
        }
        return smallest;
    }
}
