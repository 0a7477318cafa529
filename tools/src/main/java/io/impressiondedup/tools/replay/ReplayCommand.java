package io.impressiondedup.tools.replay;

import static io.impressiondedup.job.config.DedupJobOptions.BOOTSTRAP_SERVERS;
import static io.impressiondedup.job.config.DedupJobOptions.DLQ_TOPIC;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.operators.model.DeadLetterReason;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import io.impressiondedup.tools.ToolArguments;
import io.impressiondedup.tools.VerbRun;
import io.impressiondedup.tools.bootstrap.HistoryRowParser;

/**
 * {@code replay}: re-injects selected dead letters into their original topic (or {@code --to-topic}), each as
 * the original record: key, value, its own headers (no {@code dedup.*}) and its original timestamp, by the
 * header contract of {@code docs/DEAD-LETTERS.md} ({@link DeadLetterRecord}). A plain Kafka client program: no
 * Flink runs.
 *
 * <p>The dead-letter topic is read {@code read_committed} from the given start (offsets, a time, or the
 * beginning) to the end offsets found at start, so a replay is bounded even while the job goes on writing dead
 * letters. Everything replayed is written in one Kafka transaction: a replay that fails writes nothing, and can
 * simply be run again. A record that is not the job's dead letter, and a selected one whose original timestamp is
 * unknown, is counted and reported by position, never written; so is a selected one that is not a faithful copy
 * (headers dropped, value or key cut: {@link DeadLetterRecord#missing()}), unless {@code --allow-incomplete}
 * says to write it as it is ({@link ReplayAccount}).
 */
public final class ReplayCommand {

    static final String USAGE = "replay --bootstrap-servers <host:port> --dlq-topic <topic> --reason <reason,...> [--dry-run]"
            + " [--name value ...]";
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(60);

    static final List<ConfigOption<?>> ACCEPTED = List.of(BOOTSTRAP_SERVERS, DLQ_TOPIC, ReplayOptions.REASON, ReplayOptions.SOURCE_TOPIC,
            ReplayOptions.SOURCE_PARTITION, ReplayOptions.FROM_OFFSETS, ReplayOptions.FROM_TIME, ReplayOptions.UNTIL_TIME,
            ReplayOptions.TO_TOPIC, ReplayOptions.DRY_RUN, ReplayOptions.ALLOW_INCOMPLETE, ReplayOptions.TRANSACTIONAL_ID);

    private ReplayCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("replay", USAGE, "Re-injects dead letters of the dedup job, selected by reason (and source, offsets or"
                + " time), into their original topic as the original records: key, value, own headers, timestamp. All in one"
                + " Kafka transaction: a replay that fails writes nothing.", ACCEPTED, true, args, out, err, Settings::parse,
                ReplayCommand::replay);
    }

    private static int replay(Settings settings, PrintStream out, PrintStream err) {
        try (Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings.consumerProperties(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            return replay(settings, consumer, () -> new KafkaProducer<>(settings.producerProperties(), new ByteArraySerializer(),
                    new ByteArraySerializer()), out, err);
        }
    }

    /** The replay with the given clients: {@code producers} is called once, at the first record to write (never in a dry run). */
    static int replay(Settings settings, Consumer<byte[], byte[]> consumer, Supplier<Producer<byte[], byte[]>> producers, PrintStream out,
            PrintStream err) {
        ReplayAccount account = new ReplayAccount();
        List<TopicPartition> partitions = partitionsOf(consumer, settings.dlqTopic);
        consumer.assign(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, CLIENT_TIMEOUT);
        seekToStart(consumer, partitions, settings);
        Set<String> topics = consumer.listTopics(CLIENT_TIMEOUT).keySet();
        if (settings.toTopic != null && !topics.contains(settings.toTopic)) {
            throw new InvalidOptionException("--" + ReplayOptions.TO_TOPIC.key() + " " + settings.toTopic + ": no such topic on "
                    + settings.bootstrapServers);
        }
        err.println("replay: reading " + settings.dlqTopic + " (" + partitions.size() + " partitions) to the end offsets " + end);
        Producer<byte[], byte[]> producer = null;
        try {
            while (!reachedEnd(consumer, end)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.offset() >= end.get(new TopicPartition(record.topic(), record.partition()))) {
                        continue;
                    }
                    account.read();
                    DeadLetterRecord letter = new DeadLetterRecord(record);
                    String missing = letter.missing();
                    if (letter.notOurs() != null) {
                        account.skipped(ReplayAccount.NOT_OURS, null, letter.position(), letter.notOurs());
                    } else if (!settings.selects(letter)) {
                        account.notSelected(letter.reason());
                    } else if (letter.timestampUnknown() != null) {
                        account.skipped(ReplayAccount.NO_TIMESTAMP, letter.reason(), letter.position(), letter.timestampUnknown());
                    } else if (missing != null && !settings.allowIncomplete) {
                        account.skippedIncomplete(letter.reason(), letter.position(), letter.source(), missing);
                    } else {
                        String target = settings.toTopic != null ? settings.toTopic : letter.sourceTopic();
                        if (!topics.contains(target)) {
                            throw new IllegalStateException("Dead letter " + letter.position() + " (from " + letter.source()
                                    + ") goes to topic " + target + ", which does not exist on " + settings.bootstrapServers
                                    + ": give --" + ReplayOptions.TO_TOPIC.key());
                        }
                        if (!settings.dryRun) {
                            if (producer == null) {
                                producer = producers.get();
                                producer.initTransactions();
                                producer.beginTransaction();
                            }
                            producer.send(letter.original(target));
                        }
                        if (missing == null) {
                            account.replayed(letter.reason());
                        } else {
                            account.replayedIncomplete(letter.reason(), letter.position(), letter.source(), missing);
                        }
                    }
                }
            }
            if (producer != null) {
                producer.commitTransaction();
            }
        } catch (RuntimeException e) {
            if (producer != null) {
                try {
                    producer.abortTransaction();
                } catch (RuntimeException abort) {
                    e.addSuppressed(abort);
                }
            }
            throw e;
        } finally {
            if (producer != null) {
                producer.close(CLIENT_TIMEOUT);
            }
        }
        out.print(account.summary(settings.dryRun));
        return 0;
    }

    private static List<TopicPartition> partitionsOf(Consumer<byte[], byte[]> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, CLIENT_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            throw new InvalidOptionException("--" + DLQ_TOPIC.key() + " " + topic + ": no such topic");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        return partitions;
    }

    private static void seekToStart(Consumer<byte[], byte[]> consumer, List<TopicPartition> partitions, Settings settings) {
        consumer.seekToBeginning(partitions);
        if (settings.fromTime != null) {
            Map<TopicPartition, Long> query = new LinkedHashMap<>();
            partitions.forEach(p -> query.put(p, settings.fromTime));
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, CLIENT_TIMEOUT);
            Map<TopicPartition, Long> endOffsets = consumer.endOffsets(partitions, CLIENT_TIMEOUT);
            for (TopicPartition partition : partitions) {
                OffsetAndTimestamp at = found.get(partition);
                consumer.seek(partition, at != null ? at.offset() : endOffsets.get(partition));
            }
        }
        settings.fromOffsets.forEach((partition, offset) -> {
            TopicPartition tp = new TopicPartition(settings.dlqTopic, partition);
            if (!partitions.contains(tp)) {
                throw new InvalidOptionException("--" + ReplayOptions.FROM_OFFSETS.key() + ": " + settings.dlqTopic + " has no partition "
                        + partition + " (it has " + partitions.size() + ")");
            }
            consumer.seek(tp, offset);
        });
    }

    private static boolean reachedEnd(Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), CLIENT_TIMEOUT) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The command line, typed and checked; every failure names the option. */
    static final class Settings {
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

        private Settings(Configuration options, Map<String, String> kafkaProperties) {
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

        static Settings parse(String... args) {
            ToolArguments parsed = ToolArguments.parse(args, ACCEPTED);
            return new Settings(parsed.options(), parsed.kafkaProperties());
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
}
