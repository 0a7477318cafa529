package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs the job's principal needs, for a given configuration: the one list that the error
 * messages of {@link KafkaChecks} name and that {@code docs/KAFKA-ACCESS.md} explains. A test on a
 * broker with an authorizer grants exactly {@link #bindings} and runs the job.
 *
 * <p>Operations that imply others are not repeated: Read, Write and DescribeConfigs on a topic imply
 * Describe, Write on a transactional id implies Describe, Read on a group implies Describe.
 */
public final class KafkaAcls {

    /** One ACL: an operation allowed on a resource, the option that names the resource, and why the job needs it. */
    public record Acl(ResourceType resourceType, String name, PatternType patternType, AclOperation operation, String option,
            boolean optional, String why) {

        /** e.g. {@code Write on Topic 'deduplicated' (--output-topic)}, {@code Write on TransactionalId prefix 'p' (...)}. */
        public String describe() {
            String resource = resourceType == ResourceType.CLUSTER ? "the Cluster"
                    : KafkaAcls.titleCase(resourceType.name()) + (patternType == PatternType.PREFIXED ? " prefix '" : " '") + name + "'";
            return KafkaAcls.titleCase(operation.name()) + " on " + resource + (option == null ? "" : " (--" + option + ")");
        }

        /** The ACL for {@code principal} (e.g. {@code User:dedup}), from any host. */
        public AclBinding binding(String principal) {
            return new AclBinding(new ResourcePattern(resourceType, name, patternType),
                    new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
        }
    }

    private KafkaAcls() {}

    /** Every ACL the job needs with {@code config}, the optional ones (checks that degrade to a warning without them) last. */
    public static List<Acl> required(DedupJobConfig config) {
        boolean exactlyOnce = config.delivery() == org.apache.flink.connector.base.DeliveryGuarantee.EXACTLY_ONCE;
        List<Acl> acls = new ArrayList<>();
        acls.add(topic(config.inputTopic(), AclOperation.READ, DedupJobOptions.INPUT_TOPIC.key(), false,
                "the source reads it, and lists its partitions and offsets"));
        acls.add(new Acl(ResourceType.GROUP, config.groupId(), PatternType.LITERAL, AclOperation.READ, DedupJobOptions.GROUP_ID.key(), false,
                "the source commits its offsets there on checkpoints, and a job started without state reads them"));
        List<String[]> written = new ArrayList<>();
        written.add(new String[] {config.outputTopic(), DedupJobOptions.OUTPUT_TOPIC.key()});
        written.add(new String[] {config.dlqTopic(), DedupJobOptions.DLQ_TOPIC.key()});
        config.duplicatesTopic().ifPresent(t -> written.add(new String[] {t, DedupJobOptions.DUPLICATES_TOPIC.key()}));
        config.statsTopic().ifPresent(t -> written.add(new String[] {t, DedupJobOptions.STATS_TOPIC.key()}));
        for (String[] topic : written) {
            acls.add(topic(topic[0], AclOperation.WRITE, topic[1], false, "a sink writes it"));
            if (exactlyOnce) {
                acls.add(topic(topic[0], AclOperation.READ, topic[1], false, "at start the exactly-once sink lists the producers"
                        + " writing the topic (DescribeProducers) to abort the transactions a previous run left open"));
            }
        }
        if (exactlyOnce) {
            acls.add(new Acl(ResourceType.TRANSACTIONAL_ID, config.transactionalIdPrefix(), PatternType.PREFIXED, AclOperation.WRITE,
                    DedupJobOptions.TRANSACTIONAL_ID_PREFIX.key(), false, "the exactly-once sinks' transactions (implies Describe, which"
                    + " the start-up check for another job's open transactions uses)"));
        }
        acls.add(topic(config.dlqTopic(), AclOperation.DESCRIBE_CONFIGS, DedupJobOptions.DLQ_TOPIC.key(), true,
                "max.message.bytes is read at submission to size dead letters; without it they are sized for "
                        + TopicMaxMessageBytes.DEFAULT_TOPIC_MAX_MESSAGE_BYTES + " bytes"));
        if (exactlyOnce) {
            acls.add(new Acl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.DESCRIBE_CONFIGS, null, true,
                    "the brokers' transaction.max.timeout.ms is read at submission to check --"
                            + DedupJobOptions.TRANSACTION_TIMEOUT.key() + "; without it the check is skipped"));
        }
        return acls;
    }

    /** {@link #required} as ACL bindings for {@code principal}, without the optional ones unless asked. */
    public static List<AclBinding> bindings(DedupJobConfig config, String principal, boolean withOptional) {
        List<AclBinding> bindings = new ArrayList<>();
        for (Acl acl : required(config)) {
            if (withOptional || !acl.optional()) {
                bindings.add(acl.binding(principal));
            }
        }
        return bindings;
    }

    /** The ACLs of {@code required} on one resource, e.g. what a denied Describe on a topic means is missing. */
    static List<Acl> on(List<Acl> required, ResourceType type, String name, boolean withOptional) {
        List<Acl> on = new ArrayList<>();
        for (Acl acl : required) {
            if (acl.resourceType() == type && acl.name().equals(name) && (withOptional || !acl.optional())) {
                on.add(acl);
            }
        }
        return on;
    }

    /** The optional ACLs of {@code required} on one resource (every one on the transactional-id prefix), named, comma-separated. */
    static String describeOptional(List<Acl> required, ResourceType type, String name) {
        List<String> named = new ArrayList<>();
        for (Acl acl : required) {
            if (acl.resourceType() == type && acl.name().equals(name) && (acl.optional() || type == ResourceType.TRANSACTIONAL_ID)) {
                named.add(acl.describe());
            }
        }
        return String.join(", ", named);
    }

    private static Acl topic(String topic, AclOperation operation, String option, boolean optional, String why) {
        return new Acl(ResourceType.TOPIC, topic, PatternType.LITERAL, operation, option, optional, why);
    }

    /** {@code DESCRIBE_CONFIGS} as Kafka's documentation writes it: {@code DescribeConfigs}. */
    static String titleCase(String enumName) {
        StringBuilder name = new StringBuilder();
        for (String part : enumName.split("_")) {
            name.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.toString();
    }
}
