package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The text the job logs once at start ({@link DedupJobConfig#describe()}): every option with the value it runs
 * with, and where that came from when not given (the default, or the identity derived from the topics), so that a
 * run's log says how it was configured; Kafka client properties with their secrets redacted ({@link KafkaSecrets}).
 */
final class EffectiveOptions {

    private EffectiveOptions() {}

    /** Every option with its effective value, one {@code name = value} per line, Kafka secrets redacted. */
    static String describe(Configuration options, Map<String, String> kafka, String derivedIdentity) {
        StringBuilder sb = new StringBuilder();
        for (ConfigOption<?> option : ALL) {
            String unset = option == GROUP_ID || option == TRANSACTIONAL_ID_PREFIX
                    ? derivedIdentity + " (default, from --" + INPUT_TOPIC.key() + " and --" + OUTPUT_TOPIC.key() + ")"
                    : option.hasDefaultValue() ? OptionValues.format(option.defaultValue()) + " (default)" : "(not set)";
            String value = options.getOptional(option).map(OptionValues::format).orElse(unset);
            sb.append("  ").append(option.key()).append(" = ").append(value).append('\n');
        }
        new TreeMap<>(kafka).forEach((property, value) ->
                sb.append("  ").append(KAFKA_PREFIX).append(property).append(" = ").append(KafkaSecrets.redact(property, value)).append('\n'));
        return sb.toString();
    }
}
