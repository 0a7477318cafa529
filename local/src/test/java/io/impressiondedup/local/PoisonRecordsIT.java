package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import io.impressiondedup.job.io.checks.TopicMaxMessageBytes;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.verify.TopicReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Poison records among normal ones, on a real broker and a local Flink cluster: a record with
 * 70,000 headers (once a restart loop: "Corrupt record: 70000 headers" after the keyBy shuffle) and
 * one with a 2 MiB value (once forwarded whole to a dead-letter topic that cannot take it, failing
 * the sink). The dead-letter topic takes at most 300,000 bytes per record. The bounded run must
 * finish with its account balanced and without a single restart (the restart strategy is {@code
 * none}: any failure would fail the job), the header-heavy record dead-lettered as malformed
 * without its headers, the big one as oversized, truncated, with its original size and the SHA-256
 * of its full value (and its one small header kept).
 */
class PoisonRecordsIT {

    static final int DLQ_MAX_MESSAGE_BYTES = 300_000;
    static final int TWO_MIB = 2 * 1024 * 1024;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void poisonRecordsAreDeadLetteredToFitWithoutARestart(@TempDir Path dir) throws Exception {
        String bootstrap = SharedKafka.broker().bootstrapServers();
        String suffix = Long.toString(System.nanoTime(), 36);
        String in = "poison-in-" + suffix, out = "poison-out-" + suffix, dlq = "poison-dlq-" + suffix;
        KafkaTopics.create(bootstrap, Map.of(in, 1, out, 2), Map.of("max.message.bytes", Integer.toString(8 * 1024 * 1024)));
        KafkaTopics.create(bootstrap, Map.of(dlq, 1), Map.of("max.message.bytes", Integer.toString(DLQ_MAX_MESSAGE_BYTES)));

        long base = System.currentTimeMillis() - 3_600_000L;
        String headerHeavy = impression("poison-headers", base);
        String big = pad(impression("poison-big", base), TWO_MIB);
        List<String> expectedUnique = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            for (int i = 0; i < 300; i++) {
                expectedUnique.add("r" + i);
                send(producer, in, "r" + i, impression("r" + i, base + i * 1000L), new RecordHeaders());
                if (i == 100) {
                    RecordHeaders many = new RecordHeaders();
                    for (int h = 0; h < 70_000; h++) {
                        many.add("h", new byte[] {(byte) h});
                    }
                    send(producer, in, "poison-headers", headerHeavy, many);
                }
                if (i == 200) {
                    send(producer, in, "poison-big", big, new RecordHeaders().add("trace", new byte[] {1}));
                }
            }
            for (int i = 0; i < 50; i++) {
                send(producer, in, "copy-" + i, impression("r" + (i * 3), base + i * 3000L), new RecordHeaders());
            }
        }

        DedupJobConfig config = DedupJobConfig.parse("--bootstrap-servers", bootstrap, "--input-topic", in, "--output-topic", out,
                "--dlq-topic", dlq, "--bounded", "--starting-offsets", "earliest", "--capacity", "10000", "--state-backend", "hashmap",
                "--parallelism", "2", "--checkpoint-interval", "1s", "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString(),
                "--transactional-id-prefix", "poison");
        assertThat(TopicMaxMessageBytes.ofDeadLetterTopic(config)).isEqualTo(DLQ_MAX_MESSAGE_BYTES);
        Configuration flink = DedupJob.flinkConfiguration(config);
        // No restart at all: a failure, be it a corrupt record or a dead letter the topic refuses, fails the job and the test.
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(flink);
        env.setParallelism(2);
        DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), DedupJob.kafkaSinks(config));
        JobExecutionResult result = env.execute("poison records");

        String summary = Accounting.summary(result.getAllAccumulatorResults());
        assertThat(summary).startsWith("input 352 = unique 300 + duplicates 50").contains("dead-lettered 2").endsWith("(balanced)");
        assertThat(ConsumedRecords.requestIds(read(bootstrap, out))).containsExactlyInAnyOrderElementsOf(expectedUnique);

        Map<String, ConsumerRecord<byte[], byte[]>> deadLetters = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : read(bootstrap, dlq)) {
            deadLetters.put(new String(record.key(), StandardCharsets.UTF_8), record);
        }
        assertThat(deadLetters).containsOnlyKeys("poison-headers", "poison-big");

        ConsumerRecord<byte[], byte[]> headers = deadLetters.get("poison-headers");
        assertThat(ConsumedRecords.header(headers, DeadLetterHeaders.REASON)).isEqualTo("malformed");
        assertThat(ConsumedRecords.header(headers, DeadLetterHeaders.ERROR)).contains("70000 headers").contains("--max-headers 64");
        assertThat(ConsumedRecords.header(headers, DeadLetterHeaders.DROPPED_HEADERS)).isEqualTo("70000");
        assertThat(headers.headers().toArray()).extracting(Header::key).allMatch(k -> k.startsWith("dedup."));
        assertThat(new String(headers.value(), StandardCharsets.UTF_8)).isEqualTo(headerHeavy);
        assertThat(ConsumedRecords.header(headers, DeadLetterHeaders.TRUNCATED)).isNull();

        ConsumerRecord<byte[], byte[]> oversized = deadLetters.get("poison-big");
        byte[] original = big.getBytes(StandardCharsets.UTF_8);
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.REASON)).isEqualTo("oversized");
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.ERROR)).contains("--max-record-bytes");
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.TRUNCATED)).isEqualTo("true");
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo(Integer.toString(TWO_MIB));
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.PAYLOAD_SHA256))
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(original)));
        assertThat(ConsumedRecords.header(oversized, "trace")).as("an oversized record's own headers, within the limits, are kept").isEqualTo("\u0001");
        assertThat(oversized.value().length).isBetween(DLQ_MAX_MESSAGE_BYTES - 10_000, DLQ_MAX_MESSAGE_BYTES);
        assertThat(oversized.value()).isEqualTo(java.util.Arrays.copyOf(original, oversized.value().length));
        assertThat(ConsumedRecords.header(oversized, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(in);
    }

    @Test
    void aDeadLetterTopicWhoseLimitCannotBeReadIsSizedForOneMebibyte() throws Exception {
        DedupJobConfig config = DedupJobConfig.parse("--bootstrap-servers", SharedKafka.broker().bootstrapServers(), "--input-topic", "in",
                "--output-topic", "out", "--dlq-topic", "no-such-dead-letter-topic", "--capacity", "1000");
        assertThat(TopicMaxMessageBytes.ofDeadLetterTopic(config)).isEqualTo(TopicMaxMessageBytes.DEFAULT_TOPIC_MAX_MESSAGE_BYTES).isEqualTo(1 << 20);
    }

    private static String impression(String requestId, long eventTime) {
        return "{\"requestId\":\"" + requestId + "\",\"adId\":\"ad-1\",\"ts\":" + eventTime + "}";
    }

    /** The impression padded to exactly {@code size} bytes with random letters and digits, which LZ4 barely compresses. */
    private static String pad(String json, int size) {
        String prefix = json.substring(0, json.length() - 1) + ",\"pad\":\"";
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        java.util.Random random = new java.util.Random(7);
        StringBuilder padded = new StringBuilder(size).append(prefix);
        while (padded.length() < size - 2) {
            padded.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return padded.append("\"}").toString();
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", bootstrap);
        properties.put("acks", "all");
        properties.put("max.request.size", Integer.toString(8 * 1024 * 1024));
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, String value, org.apache.kafka.common.header.Headers headers)
            throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, null, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8),
                headers)).get();
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(String bootstrap, String topic) {
        return ConsumedRecords.readAll(bootstrap, topic);
    }
}
