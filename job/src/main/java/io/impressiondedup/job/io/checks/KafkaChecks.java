package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.impressiondedup.job.io.kafka.KafkaConnectors;

/**
 * Checks made against the brokers before the job is submitted, so that what Kafka would reject once
 * the job runs (and the job would then restart over and over) fails now with a message naming the
 * option: missing topics, a transaction timeout above the brokers' maximum, a client that cannot be
 * created from the options, credentials the brokers reject, and ACLs the job's principal lacks (each
 * named: resource type, name, operation; the full list is {@link KafkaAcls}). A check the brokers
 * cannot answer (unreachable, a timeout) is logged as a warning and left to Kafka.
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
    private static final long TIMEOUT_SECONDS = 30;

    private KafkaChecks() {}

    /**
     * Every topic the job reads or writes exists; the job's principal may use them, its consumer group
     * and (exactly once) its transactional ids; and the sinks' transaction timeout is one the brokers
     * accept.
     */
    public static void checkBrokers(DedupJobConfig config) {
        try (Admin admin = openAdmin(config)) {
            List<KafkaAcls.Acl> required = KafkaAcls.required(config);
            Set<KafkaAcls.Acl> missing = new LinkedHashSet<>();
            checkTopicsExist(admin, config, required, missing);
            checkGroupAccess(admin, config, required, missing);
            if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
                checkTransactionalIdAccess(admin, config, required, missing);
                checkProducerListing(admin, config, required, missing);
            }
            if (!missing.isEmpty()) {
                throw missingAcls(config, required, missing);
            }
            if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
                Long brokerMax;
                try {
                    brokerMax = brokerMaxTransactionTimeout(admin);
                } catch (Exception e) {
                    throwIfAuthentication(e, config);
                    String why = isAuthorization(e, ClusterAuthorizationException.class)
                            ? "the job's principal lacks the optional ACL " + optional(required, ResourceType.CLUSTER, "kafka-cluster")
                            : rootCause(e).toString();
                    LOG.warn("Could not read the brokers' {} ({}); not checking --{} against it", BROKER_MAX_TIMEOUT, why,
                            DedupJobOptions.TRANSACTION_TIMEOUT.key());
                    return;
                }
                checkTransactionTimeout(config.transactionTimeout(), brokerMax);
            }
        }
    }

    /**
     * Open transactions under the job's transactional ids, looked for when the job starts without
     * state (no {@code execution.state-recovery.path} in Flink's configuration: neither {@code flink
     * run -s} nor the REST run request's {@code savepointPath} was given). Another job with the same
     * prefix, or an earlier run, left them open; this job's sinks will abort or fence them. Never
     * fails: the result says what was found, or why the check could not run, and the job logs it
     * ({@link OpenTransactionsUnderPrefix#logTo}).
     */
    public static OpenTransactionsUnderPrefix openTransactionsUnderPrefix(DedupJobConfig config, ReadableConfig flinkConfiguration) {
        String prefix = config.transactionalIdPrefix();
        if (config.delivery() != DeliveryGuarantee.EXACTLY_ONCE) {
            return OpenTransactionsUnderPrefix.notRun(prefix, "--" + DedupJobOptions.DELIVERY.key() + " " + config.delivery()
                    + " uses no transactions");
        }
        Optional<String> restorePath = flinkConfiguration.getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
        if (restorePath.isPresent()) {
            return OpenTransactionsUnderPrefix.skippedRestoring(prefix, restorePath.get());
        }
        try (Admin admin = openAdmin(config)) {
            return openTransactionsUnderPrefix(admin, config);
        } catch (RuntimeException e) {
            return OpenTransactionsUnderPrefix.notRun(prefix, e.getMessage());
        }
    }

    /** The open transactions whose ids are those of the job's sinks ({@code <prefix>-output-...}, {@code -dlq-}, {@code -duplicates-}, {@code -stats-}). */
    static OpenTransactionsUnderPrefix openTransactionsUnderPrefix(Admin admin, DedupJobConfig config) {
        String prefix = config.transactionalIdPrefix();
        List<String> sinkPrefixes = List.of(prefix + KafkaConnectors.OUTPUT_ID_SUFFIX + "-", prefix + KafkaConnectors.DEAD_LETTER_ID_SUFFIX
                + "-", prefix + KafkaConnectors.DUPLICATES_ID_SUFFIX + "-", prefix + KafkaConnectors.STATS_ID_SUFFIX + "-");
        // The brokers list only the transactions the principal may describe, silently: make sure it may describe ours.
        String probe = sinkPrefixes.get(0) + "0-0";
        try {
            admin.describeTransactions(List.of(probe)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                return OpenTransactionsUnderPrefix.notRun(prefix, "the job's principal may not Describe TransactionalId prefix '"
                        + prefix + "': it lacks " + optional(KafkaAcls.required(config), ResourceType.TRANSACTIONAL_ID, prefix));
            }
            if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
                return OpenTransactionsUnderPrefix.notRun(prefix, "describing " + probe + ": " + e.getCause());
            }
        } catch (Exception e) {
            return OpenTransactionsUnderPrefix.notRun(prefix, e.toString());
        }
        Collection<TransactionListing> open;
        try {
            open = admin.listTransactions(new ListTransactionsOptions()
                            .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)))
                    .all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return OpenTransactionsUnderPrefix.notRun(prefix, "listing transactions: " + e.getCause());
        } catch (Exception e) {
            return OpenTransactionsUnderPrefix.notRun(prefix, "listing transactions: " + e);
        }
        List<String> ours = new ArrayList<>();
        for (TransactionListing transaction : open) {
            if (sinkPrefixes.stream().anyMatch(transaction.transactionalId()::startsWith)) {
                ours.add(transaction.transactionalId());
            }
        }
        Collections.sort(ours);
        return OpenTransactionsUnderPrefix.found(prefix, ours);
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
            String why = isAuthorization(e, TopicAuthorizationException.class)
                    ? "the job's principal lacks the optional ACL " + optional(KafkaAcls.required(config), ResourceType.TOPIC, config.dlqTopic())
                    : rootCause(e).toString();
            LOG.warn("Could not read {} of --{} {} ({}); sizing dead letters for {} bytes", TOPIC_MAX_MESSAGE_BYTES,
                    DedupJobOptions.DLQ_TOPIC.key(), config.dlqTopic(), why, DEFAULT_TOPIC_MAX_MESSAGE_BYTES);
            return DEFAULT_TOPIC_MAX_MESSAGE_BYTES;
        }
    }

    static int topicMaxMessageBytes(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(resource);
        ConfigEntry entry = config == null ? null : config.get(TOPIC_MAX_MESSAGE_BYTES);
        if (entry == null || entry.value() == null) {
            throw new IllegalStateException("the brokers did not report it");
        }
        return Integer.parseInt(entry.value());
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
                topic.getValue().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throwIfAuthentication(e, config);
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

    /** The principal may read the consumer group's offsets (Describe, implied by the Read the job needs); else adds Read on the group to {@code missing}. */
    static void checkGroupAccess(Admin admin, DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        try {
            admin.listConsumerGroupOffsets(config.groupId()).partitionsToOffsetAndMetadata().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throwIfAuthentication(e, config);
            if (e.getCause() instanceof GroupAuthorizationException) {
                missing.addAll(KafkaAcls.on(required, ResourceType.GROUP, config.groupId(), false));
            } else {
                LOG.warn("Could not read the offsets of --{} {} ({}); not checking the job may use the group", DedupJobOptions.GROUP_ID.key(),
                        config.groupId(), e.getCause().toString());
            }
        } catch (Exception e) {
            LOG.warn("Could not read the offsets of --{} {} ({}); not checking the job may use the group", DedupJobOptions.GROUP_ID.key(),
                    config.groupId(), e.toString());
        }
    }

    /**
     * The principal may describe the sinks' transactional ids (implied by the Write they need; Write
     * itself cannot be checked without opening a transaction); else adds Write on the prefix to {@code missing}.
     */
    static void checkTransactionalIdAccess(Admin admin, DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        String probe = config.transactionalIdPrefix() + KafkaConnectors.OUTPUT_ID_SUFFIX + "-0-0";
        try {
            admin.describeTransactions(List.of(probe)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throwIfAuthentication(e, config);
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                missing.addAll(KafkaAcls.on(required, ResourceType.TRANSACTIONAL_ID, config.transactionalIdPrefix(), false));
            } else if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
                LOG.warn("Could not describe transactional id {} ({}); not checking the job may use --{}", probe, e.getCause().toString(),
                        DedupJobOptions.TRANSACTIONAL_ID_PREFIX.key());
            }
        } catch (Exception e) {
            LOG.warn("Could not describe transactional id {} ({}); not checking the job may use --{}", probe, e.toString(),
                    DedupJobOptions.TRANSACTIONAL_ID_PREFIX.key());
        }
    }

    /**
     * The exactly-once sinks list the producers of the topics they write (DescribeProducers, which
     * needs Read on the topic) when they start, to abort what a previous run left open: without Read
     * they fail at every start. Adds Read on each written topic it is denied on to {@code missing}.
     */
    static void checkProducerListing(Admin admin, DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        List<String> written = new ArrayList<>(List.of(config.outputTopic(), config.dlqTopic()));
        config.duplicatesTopic().ifPresent(written::add);
        config.statsTopic().ifPresent(written::add);
        for (String topic : written) {
            if (missing.stream().anyMatch(acl -> acl.resourceType() == ResourceType.TOPIC && acl.name().equals(topic))) {
                continue; // not even Describe: already named
            }
            try {
                admin.describeProducers(List.of(new TopicPartition(topic, 0))).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throwIfAuthentication(e, config);
                if (e.getCause() instanceof TopicAuthorizationException) {
                    KafkaAcls.on(required, ResourceType.TOPIC, topic, false).stream()
                            .filter(acl -> acl.operation() == AclOperation.READ).forEach(missing::add);
                } else {
                    LOG.warn("Could not list the producers of topic {} ({}); not checking the job may", topic, e.getCause().toString());
                }
            } catch (Exception e) {
                LOG.warn("Could not list the producers of topic {} ({}); not checking the job may", topic, e.toString());
            }
        }
    }

    private static InvalidOptionException missingAcls(DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        List<String> named = new ArrayList<>();
        for (KafkaAcls.Acl acl : required) { // in the list's order, whatever order Kafka answered in
            if (missing.contains(acl)) {
                named.add(acl.describe());
            }
        }
        return new InvalidOptionException("The job's Kafka principal lacks ACLs on " + config.bootstrapServers() + ": "
                + String.join(", ", named) + ". Grant them; docs/KAFKA-ACCESS.md lists every ACL the job needs.");
    }

    static void checkTransactionTimeout(Duration transactionTimeout, Long brokerMaxMillis) {
        if (brokerMaxMillis != null && transactionTimeout.toMillis() > brokerMaxMillis) {
            throw new InvalidOptionException("--" + DedupJobOptions.TRANSACTION_TIMEOUT.key() + " " + transactionTimeout.toSeconds()
                    + "s exceeds the brokers' " + BROKER_MAX_TIMEOUT + " (" + brokerMaxMillis / 1000 + "s): lower it, or raise"
                    + " the broker setting; the exactly-once sinks could not start otherwise.");
        }
    }

    /** An admin client for the checks; a client that cannot be created fails naming the option at fault. */
    static Admin openAdmin(DedupJobConfig config) {
        try {
            return Admin.create(adminProperties(config));
        } catch (KafkaException e) {
            throw KafkaClientErrors.clientCreation(e, config);
        }
    }

    static Properties adminProperties(DedupJobConfig config) {
        Properties properties = new Properties();
        properties.putAll(config.kafkaProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return properties;
    }

    private static void throwIfAuthentication(Exception e, DedupJobConfig config) {
        InvalidOptionException rejected = KafkaClientErrors.authenticationOrNull(e, config);
        if (rejected != null) {
            throw rejected;
        }
    }

    private static boolean isAuthorization(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable e) {
        return e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    }

    /** The optional ACL on a resource, named. */
    private static String optional(List<KafkaAcls.Acl> required, ResourceType type, String name) {
        List<String> named = new ArrayList<>();
        for (KafkaAcls.Acl acl : required) {
            if (acl.resourceType() == type && acl.name().equals(name) && (acl.optional() || type == ResourceType.TRANSACTIONAL_ID)) {
                named.add(acl.describe());
            }
        }
        return String.join(", ", named);
    }

    private static Long brokerMaxTransactionTimeout(Admin admin) throws Exception {
        Collection<Node> nodes = admin.describeCluster().nodes().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Long smallest = null;
        for (Node node : nodes) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(broker)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            ConfigEntry entry = configs.get(broker).get(BROKER_MAX_TIMEOUT);
            if (entry != null && entry.value() != null) {
                long value = Long.parseLong(entry.value());
                smallest = smallest == null ? value : Math.min(smallest, value);
            }
        }
        return smallest;
    }
}
