package io.impressiondedup.job.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Properties a Kafka client of the job gets where the user gives none ({@code --kafka.<property>} overrides each):
 * the rule {@link ProducerDefaults} and {@link ConsumerDefaults} share.
 */
final class KafkaClientDefaults {

    private final Map<String, String> values;

    /** {@code values}: property -> value, in the order {@code --help} lists them. */
    KafkaClientDefaults(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** Sets each default in {@code client} where it holds no value of the user's. */
    void applyTo(Properties client) {
        values.forEach((property, value) -> {
            if (client.getProperty(property) == null) {
                client.setProperty(property, value);
            }
        });
    }

    /** For {@code --help}: "compression.type=lz4, batch.size=65536, ...". */
    String describe() {
        StringBuilder sb = new StringBuilder();
        values.forEach((property, value) -> sb.append(sb.length() == 0 ? "" : ", ").append(property).append('=').append(value));
        return sb.toString();
    }
}
