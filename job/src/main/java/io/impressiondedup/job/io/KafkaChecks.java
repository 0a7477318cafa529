package io.impressiondedup.job.io;

import io.impressiondedup.job.DedupJobConfig;
import io.impressiondedup.job.DedupJobOptions;
import io.impressiondedup.state.cli.InvalidCommandLineException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks made against the brokers before the job is submitted, so that a setting Kafka would reject
 * at the first checkpoint fails now with a message naming the option.
 */
public final class KafkaChecks {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaChecks.class);
    static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";

    private KafkaChecks() {}

    /**
     * Fails if the exactly-once sinks' transaction timeout exceeds the brokers' {@code
     * transaction.max.timeout.ms} (producers could not even start). If the brokers cannot be asked
     * (no permission to describe configs), logs a warning and lets Kafka decide.
     */
    public static void checkTransactionTimeout(DedupJobConfig config) {
        if (config.delivery() != DeliveryGuarantee.EXACTLY_ONCE) {
            return;
        }
        Properties properties = new Properties();
        properties.putAll(config.kafkaProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        Long brokerMax;
        try (Admin admin = Admin.create(properties)) {
            brokerMax = brokerMaxTransactionTimeout(admin);
        } catch (Exception e) {
            LOG.warn("Could not read the brokers' {} ({}); not checking --{} against it", BROKER_MAX_TIMEOUT, e.toString(),
                    DedupJobOptions.TRANSACTION_TIMEOUT.key());
            return;
        }
        check(config.transactionTimeout(), brokerMax);
    }

    static void check(Duration transactionTimeout, Long brokerMaxMillis) {
        if (brokerMaxMillis != null && transactionTimeout.toMillis() > brokerMaxMillis) {
            throw new InvalidCommandLineException("--" + DedupJobOptions.TRANSACTION_TIMEOUT.key() + " " + transactionTimeout.toSeconds()
                    + "s exceeds the brokers' " + BROKER_MAX_TIMEOUT + " (" + brokerMaxMillis / 1000 + "s): lower it, or raise"
                    + " the broker setting; the exactly-once sinks could not start otherwise.");
        }
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
