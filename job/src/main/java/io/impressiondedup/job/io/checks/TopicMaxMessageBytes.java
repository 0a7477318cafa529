package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter topic's {@value #TOPIC_MAX_MESSAGE_BYTES}, read from the brokers at submission: the largest record
 * batch they take on it, which the dead letters are sized to fit (the job's dead-letter sink). Never
 * fails the job: what the brokers cannot tell is replaced by {@link #DEFAULT_TOPIC_MAX_MESSAGE_BYTES}, with a warning.
 */
public final class TopicMaxMessageBytes {

    private static final Logger LOG = LoggerFactory.getLogger(TopicMaxMessageBytes.class);
    static final String TOPIC_MAX_MESSAGE_BYTES = "max.message.bytes";
    /**
     * What the dead letters are sized for when the brokers cannot tell the dead-letter topic's {@value
     * #TOPIC_MAX_MESSAGE_BYTES}: 1 MiB, just under Kafka's default (1 MiB + 12 bytes), so safe on a
     * topic left at the default and rarely too small elsewhere.
     */
    public static final int DEFAULT_TOPIC_MAX_MESSAGE_BYTES = 1024 * 1024;

    private TopicMaxMessageBytes() {}

    /**
     * The dead-letter topic's {@value #TOPIC_MAX_MESSAGE_BYTES} (its own, or the brokers' default it inherits). If
     * the brokers cannot tell (unreachable, no permission to describe configurations, topic missing), a warning and
     * {@link #DEFAULT_TOPIC_MAX_MESSAGE_BYTES}.
     */
    public static int ofDeadLetterTopic(DedupJobConfig config) {
        try (Admin admin = Admin.create(CheckAdmin.properties(config))) {
            return ofDeadLetterTopic(admin, config);
        } catch (RuntimeException e) {
            return fallBack(config, e);
        }
    }

    /** {@link #ofDeadLetterTopic(DedupJobConfig)} with the submission checks' admin client. */
    static int ofDeadLetterTopic(Admin admin, DedupJobConfig config) {
        try {
            return of(admin, config.dlqTopic());
        } catch (Exception e) {
            return fallBack(config, e);
        }
    }

    private static int fallBack(DedupJobConfig config, Exception e) {
        String why = KafkaClientErrors.causedBy(e, TopicAuthorizationException.class)
                ? "the job's principal lacks the optional ACL " + KafkaAcls.describeOptional(KafkaAcls.required(config), ResourceType.TOPIC,
                        config.dlqTopic())
                : KafkaClientErrors.rootCause(e).toString();
        LOG.warn("Could not read {} of --{} {} ({}); sizing dead letters for {} bytes", TOPIC_MAX_MESSAGE_BYTES,
                DedupJobOptions.DLQ_TOPIC.key(), config.dlqTopic(), why, DEFAULT_TOPIC_MAX_MESSAGE_BYTES);
        return DEFAULT_TOPIC_MAX_MESSAGE_BYTES;
    }

    static int of(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS).get(resource);
        ConfigEntry entry = config == null ? null : config.get(TOPIC_MAX_MESSAGE_BYTES);
        if (entry == null || entry.value() == null) {
            throw new IllegalStateException("the brokers did not report it");
        }
        return Integer.parseInt(entry.value());
    }
}
