package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import io.impressiondedup.testdata.verify.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed, oversized and far-future records go to the dead-letter topic with their reason and
 * original bytes while the job keeps running; a record dated 9999 does not drag the watermark
 * along (later records still pass), and the watermark keeps moving with real records (so a record
 * behind it is then dead-lettered as late).
 *
 * <p>The records are nested ({@code {"imp":{"requestId":...,"adId":...,"slot":...,"ts":...},...}}) and the job
 * reads them by JSON Pointers with a three-field key (request, ad, slot): a copy of a tuple is dropped, the same
 * request and ad in another slot passes, and a nested record that lacks a field or has an array where the path
 * needs an object is dead-lettered naming the path (on a real broker). The default
 * flat layout and key run end to end in {@link EndToEndIT}.
 */
class BadRecordsIT {

    @Test
    void badRecordsAreDeadLetteredNamingTheFieldWhileNestedRecordsAreDeduplicatedByAThreeFieldKey(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("bad", 1);
        DedupJobConfig config = DedupJobConfig.parse(
                "--bootstrap-servers", SharedKafka.broker().bootstrapServers(),
                "--input-topic", topics[0], "--output-topic", topics[1], "--dlq-topic", topics[2],
                "--starting-offsets", "earliest", "--capacity", "1000", "--state-backend", "hashmap", "--parallelism", "1",
                "--max-record-bytes", "2000", "--checkpoint-interval", "1s",
                "--dedup-key", "/imp/requestId;/imp/adId;/imp/slot", "--timestamp-field", "/imp/ts",
                "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString(), "--transactional-id-prefix", topics[1]);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(DedupJob.flinkConfiguration(config));
        env.setParallelism(1);
        DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), DedupJob.kafkaSinks(config));
        JobClient job = env.executeAsync("bad records");
        long base = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(5, ChronoUnit.DAYS).toEpochMilli();
        long hour = Duration.ofHours(1).toMillis();
        long day = Duration.ofDays(1).toMillis();
        Map<String, Long> offsets = new HashMap<>();

        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            offsets.put("r1", send(producer, topics[0], "r1", impression("r1", "s1", base + hour)));
            send(producer, topics[0], "r1 copy", impression("r1", "s1", base + hour + 1000));
            offsets.put("r1 in s2", send(producer, topics[0], "r1 in s2", impression("r1", "s2", base + hour + 2000)));
            offsets.put("no slot", send(producer, topics[0], "no slot", impression("n", "s1", base + hour).replace(",\"slot\":\"s1\"", "")));
            offsets.put("imp array", send(producer, topics[0], "imp array", "{\"imp\":[" + impression("i", "s1", base + hour) + "]}"));
            offsets.put("future", send(producer, topics[0], "future", "{\"imp\":{\"requestId\":\"f\",\"adId\":\"a\",\"slot\":\"s\",\"ts\":\"9999-12-31T23:59:59Z\"}}"));
            offsets.put("malformed", send(producer, topics[0], "malformed", "{\"requestId\":\"m\",\"adId\":"));
            offsets.put("oversized", send(producer, topics[0], "oversized", impression("o", "s1", base + hour).replace("}}", "},\"pad\":\"" + "x".repeat(3000) + "\"}")));
            offsets.put("r2", send(producer, topics[0], "r2", impression("r2", "s1", base + 2 * hour)));
            offsets.put("r3", send(producer, topics[0], "r3", impression("r3", "s1", base + 3 * day + 2 * hour)));
            awaitTopic(topics[1], records -> ConsumedRecords.requestIds(records).containsAll(List.of("r1", "r2", "r3")));

            // The watermark has followed r3 to three days after r1: r4, of day 1, is too late to deduplicate.
            offsets.put("r4", send(producer, topics[0], "r4", impression("r4", "s1", base + day + hour)));
            offsets.put("r5", send(producer, topics[0], "r5", impression("r5", "s1", base + 3 * day + 3 * hour)));
            send(producer, topics[0], "r3 again", impression("r3", "s1", base + 3 * day + 2 * hour + 1000));
            awaitTopic(topics[1], records -> ConsumedRecords.requestIds(records).contains("r5"));
            awaitTopic(topics[2], records -> records.size() == 6);
        } finally {
            job.cancel().get();
        }

        List<ConsumerRecord<byte[], byte[]>> output = read(topics[1]);
        assertThat(ConsumedRecords.requestIds(output)).containsExactlyInAnyOrder("r1", "r1", "r2", "r3", "r5");
        assertThat(output).extracting(record -> ConsumedRecords.header(record, "test.name")).contains("r1", "r1 in s2");
        Map<String, ConsumerRecord<byte[], byte[]>> deadLetters = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : read(topics[2])) {
            deadLetters.put(ConsumedRecords.header(record, "test.name"), record);
        }
        assertThat(deadLetters).containsOnlyKeys("future", "malformed", "oversized", "r4", "no slot", "imp array");
        assertThat(ConsumedRecords.header(deadLetters.get("no slot"), DeadLetterHeaders.REASON)).isEqualTo("malformed");
        assertThat(ConsumedRecords.header(deadLetters.get("no slot"), DeadLetterHeaders.ERROR)).isEqualTo("missing field '/imp/slot'");
        assertThat(ConsumedRecords.header(deadLetters.get("imp array"), DeadLetterHeaders.ERROR))
                .isEqualTo("'/imp' must be an object (on the path of '/imp/requestId'), but is an array");
        assertThat(ConsumedRecords.header(deadLetters.get("future"), DeadLetterHeaders.REASON)).isEqualTo("future-timestamp");
        assertThat(ConsumedRecords.header(deadLetters.get("future"), DeadLetterHeaders.ERROR)).contains("9999-12-31T23:59:59Z");
        assertThat(ConsumedRecords.header(deadLetters.get("malformed"), DeadLetterHeaders.REASON)).isEqualTo("malformed");
        assertThat(ConsumedRecords.header(deadLetters.get("malformed"), DeadLetterHeaders.ERROR)).contains("invalid JSON");
        assertThat(ConsumedRecords.header(deadLetters.get("oversized"), DeadLetterHeaders.REASON)).isEqualTo("oversized");
        assertThat(ConsumedRecords.header(deadLetters.get("r4"), DeadLetterHeaders.REASON)).isEqualTo("late");
        for (Map.Entry<String, ConsumerRecord<byte[], byte[]>> e : deadLetters.entrySet()) {
            ConsumerRecord<byte[], byte[]> record = e.getValue();
            assertThat(ConsumedRecords.header(record, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topics[0]);
            assertThat(ConsumedRecords.header(record, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("0");
            assertThat(ConsumedRecords.header(record, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo(Long.toString(offsets.get(e.getKey())));
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(e.getKey());
        }
        assertThat(new String(deadLetters.get("malformed").value(), StandardCharsets.UTF_8)).isEqualTo("{\"requestId\":\"m\",\"adId\":");
    }

    /** A nested impression of request {@code requestId}, ad {@code ad-1}, slot {@code slot}. */
    private static String impression(String requestId, String slot, long eventTime) {
        return "{\"campaign\":\"c\",\"imp\":{\"requestId\":\"" + requestId + "\",\"adId\":\"ad-1\",\"slot\":\"" + slot + "\",\"ts\":"
                + eventTime + "}}";
    }

    private static KafkaProducer<byte[], byte[]> producer() throws Exception {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", SharedKafka.broker().bootstrapServers());
        properties.put("acks", "all");
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static long send(KafkaProducer<byte[], byte[]> producer, String topic, String name, String value) throws Exception {
        RecordHeaders headers = new RecordHeaders();
        headers.add("test.name", name.getBytes(StandardCharsets.UTF_8));
        RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, 0, null, name.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8), headers)).get();
        return metadata.offset();
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(String topic) throws Exception {
        return ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topic);
    }

    private static void awaitTopic(String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!condition.test(read(topic))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + topic + "; it holds " + ConsumedRecords.requestIds(read(topic)));
            }
            Thread.sleep(300);
        }
    }
}
