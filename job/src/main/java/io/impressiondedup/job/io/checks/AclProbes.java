package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the ACLs the job needs ({@link KafkaAcls#required}) its principal lacks, found by asking the brokers
 * harmless questions that need the same ACLs the job's clients will: the consumer group's offsets, a transactional
 * id's description, a written topic's producers. A question denied adds the ACLs it stands for to the set of missing
 * ones, which {@link #failure} names; a question the brokers cannot answer is logged and left to Kafka. Describing
 * the topics, the first question, is {@link KafkaChecks#checkTopicsExist}'s, as it also finds missing topics.
 */
final class AclProbes {

    private static final Logger LOG = LoggerFactory.getLogger(AclProbes.class);

    private AclProbes() {}

    /** The principal may read the consumer group's offsets (Describe, implied by the Read the job needs); else adds Read on the group to {@code missing}. */
    static void checkGroupAccess(Admin admin, DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        try {
            admin.listConsumerGroupOffsets(config.groupId()).partitionsToOffsetAndMetadata().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            KafkaClientErrors.throwIfAuthentication(e, config);
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
            admin.describeTransactions(List.of(probe)).all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            KafkaClientErrors.throwIfAuthentication(e, config);
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
                admin.describeProducers(List.of(new TopicPartition(topic, 0))).all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                KafkaClientErrors.throwIfAuthentication(e, config);
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

    /** The failure naming every ACL in {@code missing}, in the order of {@code required} whatever order Kafka answered in. */
    static InvalidOptionException failure(DedupJobConfig config, List<KafkaAcls.Acl> required, Set<KafkaAcls.Acl> missing) {
        List<String> named = new ArrayList<>();
        for (KafkaAcls.Acl acl : required) {
            if (missing.contains(acl)) {
                named.add(acl.describe());
            }
        }
        return new InvalidOptionException("The job's Kafka principal lacks ACLs on " + config.bootstrapServers() + ": "
                + String.join(", ", named) + ". Grant them; docs/KAFKA-ACCESS.md lists every ACL the job needs.");
    }
}
