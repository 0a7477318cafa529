package io.impressiondedup.tools.replay;

import static io.impressiondedup.job.config.DedupJobOptions.DLQ_TOPIC;

import io.impressiondedup.job.config.InvalidOptionException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import io.impressiondedup.tools.VerbRun;

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

    private ReplayCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("replay", USAGE, "Re-injects dead letters of the dedup job, selected by reason (and source, offsets or"
                + " time), into their original topic as the original records: key, value, own headers, timestamp. All in one"
                + " Kafka transaction: a replay that fails writes nothing.", ReplaySettings.ACCEPTED, true, args, out, err, ReplaySettings::parse,
                ReplayCommand::replay);
    }

    private static int replay(ReplaySettings settings, PrintStream out, PrintStream err) {
        try (Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings.consumerProperties(), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            return replay(settings, consumer, () -> new KafkaProducer<>(settings.producerProperties(), new ByteArraySerializer(),
                    new ByteArraySerializer()), out, err);
        }
    }

    /** The replay with the given clients: {@code producers} is called once, at the first record to write (never in a dry run). */
    static int replay(ReplaySettings settings, Consumer<byte[], byte[]> consumer, Supplier<Producer<byte[], byte[]>> producers, PrintStream out,
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

    private static void seekToStart(Consumer<byte[], byte[]> consumer, List<TopicPartition> partitions, ReplaySettings settings) {
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
}
