package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks made against the brokers before the job is submitted, so that what Kafka would reject once
 * the job runs (and the job would then restart over and over) fails now with a message naming the
 * option: missing topics, a transaction timeout above the brokers' maximum, a client that cannot be
 * created from the options ({@link CheckAdmin}), credentials the brokers reject ({@link
 * KafkaClientErrors}), and ACLs the job's principal lacks (found by {@link AclProbes}, each named:
 * resource type, name, operation; the full list is {@link KafkaAcls}). A check the brokers cannot
 * answer (unreachable, a timeout) is logged as a warning and left to Kafka.
 */
public final class KafkaChecks {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaChecks.class);
    static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";

    private KafkaChecks() {}

    /**
     * Everything the job asks the brokers before it is submitted, with one admin client: {@link
     * #checkBrokers} (fails naming the option), then what the job is built with, the dead-letter topic's
     * record limit ({@link TopicMaxMessageBytes}), and what it logs, the open transactions under its
     * prefix ({@link OpenTransactionsUnderPrefix}; {@code flinkConfiguration} tells whether it restores).
     */
    public static BrokerFindings atSubmission(DedupJobConfig config, ReadableConfig flinkConfiguration) {
        try (Admin admin = CheckAdmin.open(config)) {
            checkBrokers(admin, config);
            return new BrokerFindings(TopicMaxMessageBytes.ofDeadLetterTopic(admin, config),
                    OpenTransactionsUnderPrefix.lookUp(admin, config, flinkConfiguration));
        }
    }

    /**
     * Every topic the job reads or writes exists; the job's principal may use them, its consumer group
     * and (exactly once) its transactional ids; and the sinks' transaction timeout is one the brokers
     * accept.
     */
    public static void checkBrokers(DedupJobConfig config) {
        try (Admin admin = CheckAdmin.open(config)) {
            checkBrokers(admin, config);
        }
    }

    static void checkBrokers(Admin admin, DedupJobConfig config) {
        List<KafkaAcls.Acl> required = KafkaAcls.required(config);
        Set<KafkaAcls.Acl> missing = new LinkedHashSet<>();
        checkTopicsExist(admin, config, required, missing);
        AclProbes.checkGroupAccess(admin, config, required, missing);
        if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
            AclProbes.checkTransactionalIdAccess(admin, config, required, missing);
            AclProbes.checkProducerListing(admin, config, required, missing);
        }
        if (!missing.isEmpty()) {
            throw AclProbes.failure(config, required, missing);
        }
        if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
            Long brokerMax;
            try {
                brokerMax = brokerMaxTransactionTimeout(admin);
            } catch (Exception e) {
                KafkaClientErrors.throwIfAuthentication(e, config);
                String why = KafkaClientErrors.causedBy(e, ClusterAuthorizationException.class)
                        ? "the job's principal lacks the optional ACL " + KafkaAcls.describeOptional(required, ResourceType.CLUSTER,
                                "kafka-cluster")
                        : KafkaClientErrors.rootCause(e).toString();
                LOG.warn("Could not read the brokers' {} ({}); not checking --{} against it", BROKER_MAX_TIMEOUT, why,
                        DedupJobOptions.TRANSACTION_TIMEOUT.key());
                return;
            }
            checkTransactionTimeout(config.transactionTimeout(), brokerMax);
        }
    }

    /**
     * Topics are not created by the job: the exactly-once sinks fail on a missing topic (they look
     * for its open transactions at start), and a topic auto-created by a first write would get the
     * brokers' default partition count and retention, rarely what a production topic needs. A topic
     * the principal may not describe adds the ACLs the job needs on it to {@code missing}.
     */
    static void checkTopicsExist(Admin admin, DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        Map<String, ConfigOption<String>> topics = new LinkedHashMap<>();
        topics.put(config.inputTopic(), DedupJobOptions.INPUT_TOPIC);
        topics.put(config.outputTopic(), DedupJobOptions.OUTPUT_TOPIC);
        topics.put(config.dlqTopic(), DedupJobOptions.DLQ_TOPIC);
        config.duplicatesTopic().ifPresent(t -> topics.put(t, DedupJobOptions.DUPLICATES_TOPIC));
        config.statsTopic().ifPresent(t -> topics.put(t, DedupJobOptions.STATS_TOPIC));
        Map<String, KafkaFuture<?>> described = new LinkedHashMap<>(admin.describeTopics(topics.keySet()).topicNameValues());
        List<String> absent = new ArrayList<>();
        for (Map.Entry<String, KafkaFuture<?>> topic : described.entrySet()) {
            try {
                topic.getValue().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                KafkaClientErrors.throwIfAuthentication(e, config);
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    absent.add("--" + topics.get(topic.getKey()).key() + " '" + topic.getKey() + "'");
                } else if (e.getCause() instanceof TopicAuthorizationException) {
                    missing.addAll(KafkaAcls.on(required, ResourceType.TOPIC, topic.getKey(), false));
                } else {
                    LOG.warn("Could not describe topic {} ({}); not checking that it exists", topic.getKey(), e.getCause().toString());
                }
            } catch (Exception e) {
                LOG.warn("Could not describe topic {} ({}); not checking that it exists", topic.getKey(), e.toString());
            }
        }
        if (!absent.isEmpty()) {
            throw new InvalidOptionException("Kafka topics missing on " + config.bootstrapServers() + ": " + String.join(", ", absent)
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

    private static Long brokerMaxTransactionTimeout(Admin admin) throws Exception {
        Collection<Node> nodes = admin.describeCluster().nodes().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Long smallest = null;
        for (Node node : nodes) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(broker)).all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            ConfigEntry entry = configs.get(broker).get(BROKER_MAX_TIMEOUT);
            if (entry != null && entry.value() != null) {
                long value = Long.parseLong(entry.value());
                smallest = smallest == null ? value : Math.min(smallest, value);
            }
        }
        return smallest;
    }
}
