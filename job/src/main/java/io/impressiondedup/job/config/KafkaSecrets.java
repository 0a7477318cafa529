package io.impressiondedup.job.config;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Which Kafka client properties are secrets, from Kafka's own definitions rather than a list of
 * names: every property the producer, consumer or admin client declares as {@link ConfigDef.Type#PASSWORD}
 * (passwords, private keys and their passphrases, as each Kafka release defines them), plus any
 * {@code *.jaas.config}, which Kafka types as a password only for some mechanisms but which embeds
 * credentials. Their values are never logged or printed.
 */
public final class KafkaSecrets {

    static final String REDACTED = "******";
    private static final Set<String> PASSWORD_PROPERTIES = passwordProperties();

    private KafkaSecrets() {}

    /** Whether the Kafka client property {@code property} holds a secret. */
    public static boolean isSecret(String property) {
        String name = property.toLowerCase(Locale.ROOT);
        return PASSWORD_PROPERTIES.contains(name) || name.endsWith("jaas.config");
    }

    /** {@code value}, or {@value #REDACTED} if {@code property} is a secret. */
    public static String redact(String property, String value) {
        return isSecret(property) ? REDACTED : value;
    }

    private static Set<String> passwordProperties() {
        Set<String> names = new HashSet<>();
        for (ConfigDef definition : new ConfigDef[] {ProducerConfig.configDef(), ConsumerConfig.configDef(), AdminClientConfig.configDef()}) {
            definition.configKeys().forEach((name, key) -> {
                if (key.type == ConfigDef.Type.PASSWORD) {
                    names.add(name);
                }
            });
        }
        return Set.copyOf(names);
    }
}
