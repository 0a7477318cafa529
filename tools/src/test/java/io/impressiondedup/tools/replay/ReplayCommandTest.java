package io.impressiondedup.tools.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.kafka.ImpressionDeserializationSchema;
import io.impressiondedup.job.io.kafka.KafkaRecords;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import io.impressiondedup.tools.DedupTools;

/**
 * The replay command line: bad values are refused before any Kafka client starts, naming the option. And what a
 * replay writes, against Kafka's mock clients, of dead letters built by the job's own source and dead-letter
 * serializer: faithful copies are re-injected as the originals; those that are not (headers dropped, value cut)
 * are skipped and listed by position unless {@code --allow-incomplete}, and every record read is accounted for.
 */
class ReplayCommandTest {

    private static final String[] BASE = {"replay", "--bootstrap-servers", "127.0.0.1:1", "--dlq-topic", "dlq"};

    @Test
    void anUnknownReasonIsRefusedNamingTheOptionAndTheKnownReasons() {
        String err = refused("--reason", "late,stale");
        assertThat(err).contains("'stale'").contains("--reason").contains("future-timestamp");
    }

    @Test
    void fromOffsetsAndFromTimeTogetherAreRefused() {
        assertThat(refused("--reason", "late", "--from-offsets", "0:10", "--from-time", "2026-11-23T00:00:00Z"))
                .contains("--from-offsets").contains("--from-time");
    }

    @Test
    void aMalformedOffsetPairIsRefusedNamingTheOption() {
        assertThat(refused("--reason", "late", "--from-offsets", "0-10")).contains("'0-10'").contains("--from-offsets");
    }

    @Test
    void theReasonIsRequired() {
        assertThat(refused()).contains("Missing required option --reason");
    }

    private static final String DLQ = "dlq";
    private static final String INPUT = "impressions";
    private static final long T = 1_763_900_000_000L;
    private static final String[] SELECT_ALL = {"--bootstrap-servers", "127.0.0.1:1", "--dlq-topic", DLQ, "--reason",
        "late,malformed,oversized"};

    @Test
    void incompleteDeadLettersAreSkippedAndListedWhileFaithfulOnesAreReplayed() {
        MockProducer<byte[], byte[]> producer = producer();
        String summary = replay(deadLetterTopic(), producer, SELECT_ALL);

        assertThat(summary).startsWith("replay: 5 dead letters read = 1 replayed + 0 not selected + 4 skipped\n")
                .containsPattern("late\\s+1\\s+0\\s+0\\n").containsPattern("malformed\\s+0\\s+0\\s+1\\n")
                .containsPattern("oversized\\s+0\\s+0\\s+2\\n")
                .contains("skipped, incomplete copy: 3").contains("skipped, not a dead letter of the job: 1")
                .contains("dlq-0@1 (from impressions-1@11): lacks its 70 headers (dedup.dropped-headers)")
                .contains("dlq-0@2 (from impressions-1@12): lacks its 10 headers (dedup.dropped-headers)")
                .containsPattern("dlq-0@3 \\(from impressions-0@13\\): lacks the end of its value \\(dedup.truncated: \\d+ of 20000 bytes kept\\)")
                .contains("dlq-0@4: not a dead letter of the job");
        assertThat(producer.history()).hasSize(1);
        assertFaithful(producer.history().get(0));
        assertThat(producer.transactionCommitted()).isTrue();
    }

    @Test
    void allowIncompleteReplaysThemAsTheyAreAndListsThem() {
        MockProducer<byte[], byte[]> producer = producer();
        String[] args = Arrays.copyOf(SELECT_ALL, SELECT_ALL.length + 1);
        args[SELECT_ALL.length] = "--allow-incomplete";
        String summary = replay(deadLetterTopic(), producer, args);

        assertThat(summary).startsWith("replay: 5 dead letters read = 4 replayed (3 incomplete) + 0 not selected + 1 skipped\n")
                .doesNotContain("skipped, incomplete copy")
                .contains("incomplete dead letters replayed as they are (--allow-incomplete):")
                .contains("dlq-0@1 (from impressions-1@11): lacks its 70 headers");
        List<ProducerRecord<byte[], byte[]>> written = producer.history();
        assertThat(written).hasSize(4);
        assertFaithful(written.get(0));
        assertThat(written.get(1).headers().toArray()).as("the original's 70 headers are gone, and so is every dedup.* header").isEmpty();
        assertThat(new String(written.get(1).value(), StandardCharsets.UTF_8)).isEqualTo(IMPRESSION);
        assertThat(written.get(3).value()).hasSizeLessThan(20_000);
    }

    @Test
    void aSelectionThatLeavesOutTheIncompleteOnesCountsThemAsNotSelected() {
        MockProducer<byte[], byte[]> producer = producer();
        String summary = replay(deadLetterTopic(), producer, "--bootstrap-servers", "127.0.0.1:1", "--dlq-topic", DLQ, "--reason", "late");

        assertThat(summary).startsWith("replay: 5 dead letters read = 1 replayed + 3 not selected + 1 skipped\n")
                .doesNotContain("incomplete");
        assertThat(producer.history()).hasSize(1);
        assertFaithful(producer.history().get(0));
    }

    static final String IMPRESSION = "{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":" + T + "}";

    /**
     * The dead-letter topic, one partition: a faithful late dead letter, two dead-lettered at the source without their
     * headers (70 over --max-headers, 10 over --max-record-bytes), one truncated by the sink, and a stray record.
     */
    private static List<ConsumerRecord<byte[], byte[]>> deadLetterTopic() {
        KafkaRecords.DeadLetters whole = new KafkaRecords.DeadLetters(DLQ, Integer.MAX_VALUE);
        List<ProducerRecord<byte[], byte[]>> written = new ArrayList<>();
        written.add(whole.serialize(new DeadLetter(new RawKafkaRecord(INPUT, 0, 10L, T, utf8("k-late"), utf8(IMPRESSION),
                new String[] {"trace"}, new byte[][] {utf8("t-1")}), DeadLetterReason.LATE, "3 days behind the watermark"), null, null));
        written.add(whole.serialize(fromTheSource(64, Integer.MAX_VALUE, consumed(11L, IMPRESSION, 70, 1)), null, null));
        written.add(whole.serialize(fromTheSource(64, 200, consumed(12L, IMPRESSION, 10, 100)), null, null));
        byte[] big = new byte[20_000];
        Arrays.fill(big, (byte) 'x');
        written.add(new KafkaRecords.DeadLetters(DLQ, 5_000).serialize(new DeadLetter(new RawKafkaRecord(INPUT, 0, 13L, T, utf8("k-big"),
                big, null, null), DeadLetterReason.OVERSIZED, "record of 20000 bytes exceeds --max-record-bytes 10000"), null, null));
        written.add(new ProducerRecord<>(DLQ, null, T, utf8("stray"), utf8("no contract headers")));
        List<ConsumerRecord<byte[], byte[]>> topic = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> record : written) {
            topic.add(new ConsumerRecord<>(DLQ, 0, topic.size(), T + 1000, TimestampType.CREATE_TIME, -1, -1, record.key(), record.value(),
                    record.headers(), Optional.empty()));
        }
        return topic;
    }

    /** What the job's source makes of {@code record} with {@code --max-headers} and {@code --max-record-bytes}: here, a dead letter. */
    private static DeadLetter fromTheSource(int maxHeaders, int maxRecordBytes, ConsumerRecord<byte[], byte[]> record) {
        ParserSettings settings = new ParserSettings("requestId", "adId", "ts", maxRecordBytes, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME);
        List<ParsedRecord> out = new ArrayList<>();
        new ImpressionDeserializationSchema(settings, maxHeaders).deserialize(record, new ListCollector<>(out));
        assertThat(out).hasSize(1);
        return out.get(0).deadLetter();
    }

    private static ConsumerRecord<byte[], byte[]> consumed(long offset, String value, int headers, int headerBytes) {
        RecordHeaders recordHeaders = new RecordHeaders();
        for (int i = 0; i < headers; i++) {
            recordHeaders.add("h" + i, new byte[headerBytes]);
        }
        return new ConsumerRecord<>(INPUT, 1, offset, T, TimestampType.CREATE_TIME, -1, -1, utf8("k-" + offset), utf8(value), recordHeaders,
                Optional.empty());
    }

    private static void assertFaithful(ProducerRecord<byte[], byte[]> replayed) {
        assertThat(replayed.topic()).isEqualTo(INPUT);
        assertThat(replayed.key()).isEqualTo(utf8("k-late"));
        assertThat(replayed.value()).isEqualTo(utf8(IMPRESSION));
        assertThat(replayed.timestamp()).isEqualTo(T);
        assertThat(replayed.headers().toArray()).hasSize(1);
        assertThat(replayed.headers().lastHeader("trace").value()).isEqualTo(utf8("t-1"));
    }

    private static MockProducer<byte[], byte[]> producer() {
        return new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Runs the replay on {@code topic} (the dead-letter topic) with mock clients; returns its summary. */
    private static String replay(List<ConsumerRecord<byte[], byte[]>> topic, MockProducer<byte[], byte[]> producer, String... args) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        TopicPartition partition = new TopicPartition(DLQ, 0);
        consumer.updatePartitions(DLQ, List.of(new PartitionInfo(DLQ, 0, null, null, null)));
        consumer.updatePartitions(INPUT, List.of(new PartitionInfo(INPUT, 0, null, null, null), new PartitionInfo(INPUT, 1, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(partition, 0L));
        consumer.updateEndOffsets(Map.of(partition, (long) topic.size()));
        consumer.schedulePollTask(() -> topic.forEach(consumer::addRecord));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = ReplayCommand.replay(ReplaySettings.parse(args), consumer, () -> producer,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
        assertThat(exit).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String refused(String... args) {
        String[] all = new String[BASE.length + args.length];
        System.arraycopy(BASE, 0, all, 0, BASE.length);
        System.arraycopy(args, 0, all, BASE.length, args.length);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(all, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }
}
