package io.impressiondedup.tools.replay;

import static io.impressiondedup.job.config.DedupJobOptions.BOOTSTRAP_SERVERS;
import static io.impressiondedup.job.config.DedupJobOptions.DLQ_TOPIC;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.tools.ToolArguments;
import io.impressiondedup.tools.ToolOptions;
import io.impressiondedup.tools.bootstrap.HistoryRowParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The {@code replay} command line, typed and checked, every failure naming the option: which dead letters to read
 * (topic, start by offsets or time), which of them to replay (reason, source, time range), where to, and the Kafka
 * clients' properties for that. {@link #selects} is the selection; the consumer reads {@code read_committed} and the
 * producer writes in one transaction ({@link ReplayCommand}).
 */
final class ReplaySettings {

    /** The options {@code replay} accepts. */
    static final List<ConfigOption<?>> ACCEPTED = List.of(BOOTSTRAP_SERVERS, DLQ_TOPIC, ReplayOptions.REASON, ReplayOptions.SOURCE_TOPIC,
            ReplayOptions.SOURCE_PARTITION, ReplayOptions.FROM_OFFSETS, ReplayOptions.FROM_TIME, ReplayOptions.UNTIL_TIME,
            ReplayOptions.TO_TOPIC, ReplayOptions.DRY_RUN, ReplayOptions.ALLOW_INCOMPLETE, ReplayOptions.TRANSACTIONAL_ID,
            ToolOptions.VERBOSE);

    final String bootstrapServers;
    final String dlqTopic;
    final Set<String> reasons;
    final String sourceTopic;
    final Integer sourcePartition;
    final Map<Integer, Long> fromOffsets;
    final Long fromTime;
    final Long untilTime;
    final String toTopic;
    final boolean dryRun;
    final boolean allowIncomplete;
    final String transactionalId;
    final Map<String, String> kafkaProperties;

    private ReplaySettings(Configuration options, Map<String, String> kafkaProperties) {
        this.kafkaProperties = kafkaProperties;
        bootstrapServers = required(options, BOOTSTRAP_SERVERS);
        dlqTopic = required(options, DLQ_TOPIC);
        reasons = reasons(required(options, ReplayOptions.REASON));
        sourceTopic = options.get(ReplayOptions.SOURCE_TOPIC);
        sourcePartition = options.get(ReplayOptions.SOURCE_PARTITION);
        fromOffsets = offsets(options.get(ReplayOptions.FROM_OFFSETS));
        fromTime = options.getOptional(ReplayOptions.FROM_TIME).map(t -> time(ReplayOptions.FROM_TIME, t)).orElse(null);
        untilTime = options.getOptional(ReplayOptions.UNTIL_TIME).map(t -> time(ReplayOptions.UNTIL_TIME, t)).orElse(null);
        if (fromTime != null && !fromOffsets.isEmpty()) {
            throw new InvalidOptionException("Give --" + ReplayOptions.FROM_OFFSETS.key() + " or --" + ReplayOptions.FROM_TIME.key()
                    + ", not both");
        }
        if (fromTime != null && untilTime != null && untilTime <= fromTime) {
            throw new InvalidOptionException("--" + ReplayOptions.UNTIL_TIME.key() + " must be after --" + ReplayOptions.FROM_TIME.key());
        }
        toTopic = options.get(ReplayOptions.TO_TOPIC);
        dryRun = options.get(ReplayOptions.DRY_RUN);
        allowIncomplete = options.get(ReplayOptions.ALLOW_INCOMPLETE);
        transactionalId = options.get(ReplayOptions.TRANSACTIONAL_ID);
    }

    static ReplaySettings parse(String... args) {
        ToolArguments parsed = ToolArguments.parse(args, ACCEPTED);
        return new ReplaySettings(parsed.options(), parsed.kafkaProperties());
    }

    /** Whether the selection (reason, source, time range) takes this dead letter. */
    boolean selects(DeadLetterRecord letter) {
        return reasons.contains(letter.reason())
                && (sourceTopic == null || sourceTopic.equals(letter.sourceTopic()))
                && (sourcePartition == null || sourcePartition.equals(letter.sourcePartition()))
                && (fromTime == null || letter.timestamp() >= fromTime)
                && (untilTime == null || letter.timestamp() < untilTime);
    }

    Properties consumerProperties() {
        Properties properties = new Properties();
        properties.putAll(kafkaProperties);
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return properties;
    }

    Properties producerProperties() {
        Properties properties = new Properties();
        properties.putAll(kafkaProperties);
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return properties;
    }

    private static Set<String> reasons(String text) {
        Set<String> reasons = new LinkedHashSet<>();
        for (String part : text.split(",")) {
            try {
                reasons.add(DeadLetterReason.fromHeaderValue(part.trim()).headerValue());
            } catch (IllegalArgumentException e) {
                List<String> known = new ArrayList<>();
                for (DeadLetterReason reason : DeadLetterReason.values()) {
                    known.add(reason.headerValue());
                }
                throw new InvalidOptionException("Invalid value '" + part.trim() + "' for --" + ReplayOptions.REASON.key()
                        + ": expected reasons among " + String.join(", ", known) + ", comma-separated");
            }
        }
        return reasons;
    }

    private static Map<Integer, Long> offsets(String text) {
        Map<Integer, Long> offsets = new LinkedHashMap<>();
        if (text == null) {
            return offsets;
        }
        for (String pair : text.split(",")) {
            String[] parts = pair.trim().split(":");
            try {
                if (parts.length != 2 || Integer.parseInt(parts[0]) < 0 || Long.parseLong(parts[1]) < 0) {
                    throw new NumberFormatException();
                }
                offsets.put(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
            } catch (NumberFormatException e) {
                throw new InvalidOptionException("Invalid value '" + pair.trim() + "' for --" + ReplayOptions.FROM_OFFSETS.key()
                        + ": expected partition:offset pairs, comma-separated (e.g. 0:1200,1:980)");
            }
        }
        return offsets;
    }

    private static long time(ConfigOption<String> option, String text) {
        Long millis = HistoryRowParser.eventTime(text);
        if (millis == null) {
            throw new InvalidOptionException("Invalid value '" + text + "' for --" + option.key()
                    + ": expected an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z) or epoch milliseconds");
        }
        return millis;
    }

    private static <T> T required(Configuration options, ConfigOption<T> option) {
        if (!options.contains(option)) {
            throw new InvalidOptionException("Missing required option --" + option.key() + ": "
                    + DedupJobOptions.descriptionOf(option) + " Run with --help for the list.");
        }
        return options.get(option);
    }
}
