package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;

/**
 * The Kafka admin client the submission checks ask the brokers with: the job's own client properties (security,
 * bootstrap servers), so the checks see what the job's clients will, and a bounded wait on every answer, so an
 * unreachable broker delays the submission by at most {@value #TIMEOUT_SECONDS} s per question, never hangs it.
 */
final class CheckAdmin {

    /** How long a check waits for one answer of the brokers. */
    static final long TIMEOUT_SECONDS = 30;

    private CheckAdmin() {}

    /** An admin client for the checks; a client that cannot be created fails naming the option at fault. */
    static Admin open(DedupJobConfig config) {
        try {
            return Admin.create(properties(config));
        } catch (KafkaException e) {
            throw KafkaClientErrors.clientCreation(e, config);
        }
    }

    static Properties properties(DedupJobConfig config) {
        Properties properties = new Properties();
        properties.putAll(config.kafkaProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return properties;
    }
}
