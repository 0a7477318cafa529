package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import io.impressiondedup.job.io.kafka.ImpressionDeserializationSchema;
import io.impressiondedup.job.io.kafka.KafkaRecords;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code dedup-tools.jar replay} as users run it, against a real broker: dead letters written by the job's own
 * dead-letter serializer ({@link KafkaRecords.DeadLetters}) are re-injected, selected by reason, as the original
 * records (key, value, own headers, timestamp), read back read_committed; a dry run writes nothing; a record
 * without the contract's headers is counted and reported, not replayed; a dead letter the job's source stripped
 * of its headers is skipped and listed unless {@code --allow-incomplete}.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class ReplayIT {

    private static final AtomicInteger TOPICS = new AtomicInteger();
    /**
     * The records' timestamps: hours old, well inside the broker's time retention (7 days by default). Dead
     * letters and replayed records keep these timestamps, so records older than the retention would make
     * whole segments deletable, and the broker's retention task (every 5 minutes) would then empty the topics
     * between two steps of the test.
     */
    private static final long T1 = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(3)).toEpochMilli();
    private static final long T2 = T1 + Duration.ofHours(1).toMillis();

    @Test
    void replayReInjectsTheSelectedReasonAsTheOriginalRecordsAndADryRunWritesNothing() throws Exception {
        int n = TOPICS.incrementAndGet();
        String input = "replay-in-" + n;
        String dlq = "replay-dlq-" + n;
        String other = "replay-other-" + n;
        String incomplete = "replay-incomplete-" + n;
        SharedKafka.broker().createTopics(Map.of(input, 2, dlq, 1, other, 1, incomplete, 1));
        String servers = SharedKafka.broker().bootstrapServers();

        KafkaRecords.DeadLetters deadLetters = new KafkaRecords.DeadLetters(dlq, Integer.MAX_VALUE);
        try (KafkaProducer<byte[], byte[]> producer = producer(servers)) {
            producer.send(deadLetters.serialize(new DeadLetter(raw(input, 1, 10L, T1, "k-late-1", "{\"requestId\":\"a\"}", "trace", "t-1"),
                    DeadLetterReason.LATE, "3 days behind the watermark"), null, null)).get();
            producer.send(deadLetters.serialize(new DeadLetter(raw(input, 0, 11L, T1 + 1, "k-malformed", "{\"requestId\":", "trace", "t-2"),
                    DeadLetterReason.MALFORMED, "invalid JSON"), null, null)).get();
            producer.send(new ProducerRecord<>(dlq, null, T1, utf8("stray"), utf8("no contract headers"))).get();
            producer.send(deadLetters.serialize(new DeadLetter(raw(input, 0, 12L, T2, "k-late-2", "{\"requestId\":\"b\"}", "h", "v"),
                    DeadLetterReason.LATE, "2 days behind the watermark"), null, null)).get();
            producer.send(deadLetters.serialize(strippedAtTheSource(input, 1, 13L, "k-many-headers", 65), null, null)).get();
        }

        DedupToolsProcess.Result dryRun = DedupToolsProcess.run(workDir(), "replay", "--bootstrap-servers", servers, "--dlq-topic", dlq,
                "--reason", "late", "--to-topic", other, "--dry-run").succeeded();
        assertThat(dryRun.stdout()).as("stdout; its stderr (the end offsets read to):%n%s", dryRun.stderr()).contains("5 dead letters read = 2 to replay + 2 not selected + 1 skipped").contains("dlq-" + n + "-0@2");
        assertThat(ConsumedRecords.readAll(servers, other)).isEmpty();

        DedupToolsProcess.Result replay = DedupToolsProcess.run(workDir(), "replay", "--bootstrap-servers", servers, "--dlq-topic", dlq,
                "--reason", "late").succeeded();
        assertThat(replay.stdout()).as("stdout; its stderr (the end offsets read to):%n%s", replay.stderr()).contains("5 dead letters read = 2 replayed + 2 not selected + 1 skipped")
                .containsPattern("late\\s+2\\s+0\\s+0").containsPattern("malformed\\s+0\\s+2\\s+0")
                .contains("skipped, not a dead letter of the job: 1");

        List<ConsumerRecord<byte[], byte[]>> replayed = ConsumedRecords.readAll(servers, input);
        replayed.sort(Comparator.comparingLong(ConsumerRecord::timestamp));
        assertThat(replayed).hasSize(2);
        assertOriginal(replayed.get(0), "k-late-1", "{\"requestId\":\"a\"}", T1, "trace", "t-1");
        assertOriginal(replayed.get(1), "k-late-2", "{\"requestId\":\"b\"}", T2, "h", "v");
        assertThat(ConsumedRecords.readAll(servers, other)).isEmpty();

        DedupToolsProcess.Result malformed = DedupToolsProcess.run(workDir(), "replay", "--bootstrap-servers", servers, "--dlq-topic", dlq,
                "--reason", "malformed", "--to-topic", incomplete).succeeded();
        assertThat(malformed.stdout()).as("stdout; its stderr (the end offsets read to):%n%s", malformed.stderr()).contains("5 dead letters read = 1 replayed + 2 not selected + 2 skipped")
                .contains("skipped, incomplete copy: 1")
                .contains("dlq-" + n + "-0@4 (from " + input + "-1@13): lacks its 65 headers (dedup.dropped-headers)");
        List<ConsumerRecord<byte[], byte[]>> faithfulOnly = ConsumedRecords.readAll(servers, incomplete);
        assertThat(faithfulOnly).hasSize(1);
        assertOriginal(faithfulOnly.get(0), "k-malformed", "{\"requestId\":", T1 + 1, "trace", "t-2");

        DedupToolsProcess.Result anyway = DedupToolsProcess.run(workDir(), "replay", "--bootstrap-servers", servers, "--dlq-topic", dlq,
                "--reason", "malformed", "--to-topic", incomplete, "--allow-incomplete").succeeded();
        assertThat(anyway.stdout()).as("stdout; its stderr (the end offsets read to):%n%s", anyway.stderr()).contains("5 dead letters read = 2 replayed (1 incomplete) + 2 not selected + 1 skipped");
        List<ConsumerRecord<byte[], byte[]>> withTheStripped = ConsumedRecords.readAll(servers, incomplete);
        assertThat(withTheStripped).hasSize(3);
        ConsumerRecord<byte[], byte[]> stripped = withTheStripped.stream()
                .filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("k-many-headers")).findFirst().orElseThrow();
        assertThat(stripped.headers().toArray()).as("replayed without its 65 headers, as --allow-incomplete says").isEmpty();
        assertThat(new String(stripped.value(), StandardCharsets.UTF_8)).isEqualTo("{\"requestId\":\"c\"}");
    }

    /** The dead letter the job's source makes of a record with more headers than --max-headers (64): without them. */
    private static DeadLetter strippedAtTheSource(String topic, int partition, long offset, String key, int headers) {
        RecordHeaders recordHeaders = new RecordHeaders();
        for (int i = 0; i < headers; i++) {
            recordHeaders.add("h" + i, utf8("v"));
        }
        byte[] value = utf8("{\"requestId\":\"c\"}");
        List<ParsedRecord> out = new ArrayList<>();
        new ImpressionDeserializationSchema(ParserSettings.defaults()).deserialize(new ConsumerRecord<>(topic, partition, offset, T2,
                TimestampType.CREATE_TIME, -1, -1, utf8(key), value, recordHeaders, Optional.empty()), new ListCollector<>(out));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        return out.get(0).deadLetter();
    }

    private static void assertOriginal(ConsumerRecord<byte[], byte[]> record, String key, String value, long timestamp, String header,
            String headerValue) {
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(key);
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(value);
        assertThat(record.timestamp()).isEqualTo(timestamp);
        Header[] headers = record.headers().toArray();
        assertThat(headers).hasSize(1);
        assertThat(headers[0].key()).isEqualTo(header);
        assertThat(new String(headers[0].value(), StandardCharsets.UTF_8)).isEqualTo(headerValue);
        assertThat(record.headers().lastHeader(DeadLetterHeaders.REASON)).isNull();
    }

    private static RawKafkaRecord raw(String topic, int partition, long offset, long timestamp, String key, String value, String header,
            String headerValue) {
        return new RawKafkaRecord(topic, partition, offset, timestamp, utf8(key), utf8(value), new String[] {header},
                new byte[][] {utf8(headerValue)});
    }

    private static KafkaProducer<byte[], byte[]> producer(String servers) {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", servers);
        properties.put("acks", "all");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Path workDir() {
        return Repository.buildDirectory().resolve("replay-test");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
