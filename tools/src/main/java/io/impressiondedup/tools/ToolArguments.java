package io.impressiondedup.tools;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * A verb's command line that also takes Kafka client properties ({@code --kafka.<property> value}): the
 * options, typed and checked by their rules, and the Kafka properties apart, prefix removed.
 */
public record ToolArguments(Configuration options, Map<String, String> kafkaProperties) {

    public static ToolArguments parse(String[] args, Collection<ConfigOption<?>> accepted) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> kafka = new LinkedHashMap<>();
        OptionSources.fromArguments(args, accepted, true).forEach((key, value) -> {
            if (key.startsWith(DedupJobOptions.KAFKA_PREFIX)) {
                kafka.put(key.substring(DedupJobOptions.KAFKA_PREFIX.length()), value);
            } else {
                values.put(key, value);
            }
        });
        Configuration options = Configuration.fromMap(values);
        OptionValues.check(options, accepted);
        return new ToolArguments(options, kafka);
    }
}
