package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.ConsumerDefaults;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.junit.jupiter.api.Test;

/** Dead letters sized to fit the dead-letter topic: whole up to the limit, truncated beyond it, with size and hash. */
public class KafkaRecordsTest {

    static final byte[] KEY = "key-1".getBytes(StandardCharsets.UTF_8);

    static byte[] random(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    static DeadLetter deadLetter(byte[] key, byte[] value, int headers, int headerBytes) {
        String[] keys = new String[headers];
        byte[][] values = new byte[headers][];
        for (int i = 0; i < headers; i++) {
            keys[i] = "h\u00e9" + i;
            values[i] = random(headerBytes);
        }
        return new DeadLetter(new RawKafkaRecord("impressions", 2, 1234L, 1_700_000_000_000L, key, value, keys, values),
                DeadLetterReason.OVERSIZED, "record of many bytes exceeds --max-record-bytes 65536");
    }

    static long size(ProducerRecord<byte[], byte[]> record) {
        return KafkaRecords.sizeUpperBound(record.key(), record.value(), record.headers());
    }

    /** What Kafka's producer checks against max.request.size. */
    static long kafkaSize(byte[] key, byte[] value, Header[] headers) {
        return AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE,
                key == null ? null : ByteBuffer.wrap(key), value == null ? null : ByteBuffer.wrap(value), headers);
    }

    public static String header(ProducerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void sizesAreCountedAsKafkasProducerCountsThem() {
        int[] sizes = {0, 1, 63, 64, 8191, 8192, 1_048_575, 1_048_576, 2 * 1024 * 1024};
        for (int size : sizes) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("k", null);
            headers.add("\u00e9\u20ac\ud83d\ude00", random(size % 300));
            for (int i = 0; i < 70; i++) {
                headers.add("n" + i, new byte[i]);
            }
            byte[] value = random(size);
            assertThat(KafkaRecords.sizeUpperBound(KEY, value, headers)).as("value of %d bytes", size)
                    .isEqualTo(kafkaSize(KEY, value, headers.toArray()));
            assertThat(KafkaRecords.sizeUpperBound(null, null, new RecordHeaders())).isEqualTo(kafkaSize(null, null, new Header[0]));
        }
    }

    @Test
    void aDeadLetterExactlyAtTheLimitIsWrittenWholeAndOneByteMoreIsTruncatedWithItsSizeAndHash() throws Exception {
        byte[] value = random(200_000);
        DeadLetter deadLetter = deadLetter(KEY, value, 3, 10);
        ProducerRecord<byte[], byte[]> whole = new KafkaRecords.DeadLetters("dlq", Integer.MAX_VALUE).serialize(deadLetter, null, null);
        int exact = Math.toIntExact(size(whole));

        ProducerRecord<byte[], byte[]> atLimit = new KafkaRecords.DeadLetters("dlq", exact).serialize(deadLetter, null, null);
        assertThat(atLimit.value()).isSameAs(value);
        assertThat(atLimit.key()).isSameAs(KEY);
        assertThat(header(atLimit, DeadLetterHeaders.TRUNCATED)).isNull();
        assertThat(header(atLimit, DeadLetterHeaders.PAYLOAD_SHA256)).isNull();
        assertThat(atLimit.headers().toArray()).hasSize(3 + 6);
        assertThat(atLimit.topic()).isEqualTo("dlq");
        assertThat(atLimit.timestamp()).isEqualTo(1_700_000_000_000L);

        ProducerRecord<byte[], byte[]> over = new KafkaRecords.DeadLetters("dlq", exact - 1).serialize(deadLetter, null, null);
        assertThat(size(over)).isLessThanOrEqualTo(exact - 1).isGreaterThan(exact - 1 - 16);
        assertThat(size(over)).isEqualTo(kafkaSize(over.key(), over.value(), over.headers().toArray()));
        assertThat(header(over, DeadLetterHeaders.TRUNCATED)).isEqualTo("true");
        assertThat(header(over, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo("200000");
        assertThat(header(over, DeadLetterHeaders.PAYLOAD_SHA256)).isEqualTo(sha256(value)).hasSize(64);
        assertThat(over.value()).isEqualTo(Arrays.copyOf(value, over.value().length));
        assertThat(over.key()).isEqualTo(KEY);
        assertThat(header(over, "h\u00e90")).as("the record's own headers fit: kept").isNotNull();
        assertThat(header(over, DeadLetterHeaders.REASON)).isEqualTo("oversized");
        assertThat(header(over, DeadLetterHeaders.ERROR)).contains("--max-record-bytes");
        assertThat(header(over, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("impressions");
        assertThat(header(over, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("2");
        assertThat(header(over, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("1234");
        assertThat(header(over, DeadLetterHeaders.DROPPED_HEADERS)).isNull();
    }

    @Test
    void aTwoMibValueIsCutToTheTopicsLimitAsTheSinkIsWired() throws Exception {
        byte[] value = random(2 * 1024 * 1024);
        DedupJobConfig config = DedupJobConfig.parse("--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out",
                "--dlq-topic", "dlq", "--capacity", "1000");
        KafkaRecords.DeadLetters serializer = KafkaConnectors.deadLetterSerializer(config, 300_000);
        assertThat(serializer.maxBytes()).isEqualTo(300_000 - 1024 - 300_000 / 128);

        ProducerRecord<byte[], byte[]> record = serializer.serialize(deadLetter(KEY, value, 0, 0), null, null);

        assertThat(size(record)).isLessThanOrEqualTo(serializer.maxBytes()).isGreaterThan(serializer.maxBytes() - 16);
        assertThat(header(record, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo(Integer.toString(value.length));
        assertThat(header(record, DeadLetterHeaders.PAYLOAD_SHA256)).isEqualTo(sha256(value));
    }

    @Test
    void headersThatLeaveNoRoomForTheValueAreDroppedAndAKeyThatDoesNotFitIsCut() throws Exception {
        byte[] value = random(5_000);
        ProducerRecord<byte[], byte[]> heavy = new KafkaRecords.DeadLetters("dlq", 8_000).serialize(deadLetter(KEY, value, 10, 1_000), null, null);
        assertThat(size(heavy)).isLessThanOrEqualTo(8_000);
        assertThat(header(heavy, DeadLetterHeaders.DROPPED_HEADERS)).isEqualTo("10");
        assertThat(header(heavy, "h\u00e90")).isNull();
        assertThat(header(heavy, DeadLetterHeaders.TRUNCATED)).isEqualTo("true");
        assertThat(heavy.value()).hasSizeGreaterThan(4_000);
        assertThat(heavy.value()).isEqualTo(Arrays.copyOf(value, heavy.value().length));

        byte[] key = random(20_000);
        ProducerRecord<byte[], byte[]> bigKey = new KafkaRecords.DeadLetters("dlq", 8_000).serialize(deadLetter(key, value, 0, 0), null, null);
        assertThat(size(bigKey)).isLessThanOrEqualTo(8_000).isGreaterThan(8_000 - 16);
        assertThat(header(bigKey, DeadLetterHeaders.ORIGINAL_KEY_SIZE)).isEqualTo("20000");
        assertThat(bigKey.key()).isEqualTo(Arrays.copyOf(key, bigKey.key().length));
        assertThat(bigKey.value()).hasSizeLessThanOrEqualTo(8).isEqualTo(Arrays.copyOf(value, bigKey.value().length));
        assertThat(header(bigKey, DeadLetterHeaders.PAYLOAD_SHA256)).isEqualTo(sha256(value));

        ProducerRecord<byte[], byte[]> tombstone = new KafkaRecords.DeadLetters("dlq", 8_000).serialize(deadLetter(key, null, 0, 0), null, null);
        assertThat(tombstone.value()).isNull();
        assertThat(header(tombstone, DeadLetterHeaders.ORIGINAL_SIZE)).isEqualTo("-1");
        assertThat(header(tombstone, DeadLetterHeaders.PAYLOAD_SHA256)).isNull();
        assertThat(size(tombstone)).isLessThanOrEqualTo(8_000);
    }

    @Test
    void aDeadLetterWhoseHeadersTheSourceDroppedKeepsTheirCountWhenItIsTruncatedToo() {
        byte[] value = random(20_000);
        for (byte[] key : new byte[][] {KEY, random(20_000)}) {
            RawKafkaRecord stripped = new RawKafkaRecord("impressions", 2, 1234L, 1_700_000_000_000L, key, value,
                    new String[] {DeadLetterHeaders.DROPPED_HEADERS}, new byte[][] {"70000".getBytes(StandardCharsets.US_ASCII)});
            DeadLetter deadLetter = new DeadLetter(stripped, DeadLetterReason.MALFORMED, "70000 headers exceed --max-headers 64");
            for (int maxBytes : new int[] {Integer.MAX_VALUE, 5_000}) {
                String path = "key of " + key.length + " bytes, limit " + maxBytes;
                ProducerRecord<byte[], byte[]> written = new KafkaRecords.DeadLetters("dlq", maxBytes).serialize(deadLetter, null, null);
                assertThat(written.headers().headers(DeadLetterHeaders.DROPPED_HEADERS)).as(path).hasSize(1);
                assertThat(header(written, DeadLetterHeaders.DROPPED_HEADERS)).as(path).isEqualTo("70000");
                assertThat(size(written)).as(path).isLessThanOrEqualTo(maxBytes);
                assertThat(header(written, DeadLetterHeaders.TRUNCATED)).as(path).isEqualTo(maxBytes == Integer.MAX_VALUE ? null : "true");
            }
        }
    }

    @Test
    void theLimitIsTheSmallerOfTopicAndProducerMinusAMargin() {
        assertThat(KafkaConnectors.deadLetterMaxBytes(1_048_588, 2 * 1024 * 1024)).isEqualTo(1_048_588 - 1024 - 1_048_588 / 128);
        assertThat(KafkaConnectors.deadLetterMaxBytes(8 * 1024 * 1024, 2 * 1024 * 1024)).isEqualTo(2 * 1024 * 1024 - 1024 - 16_384);
        String[] required = {"--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq",
            "--capacity", "1000"};
        DedupJobConfig defaults = DedupJobConfig.parse(required);
        assertThat(KafkaConnectors.producerMaxRequestSize(defaults)).isEqualTo(2 * 1024 * 1024);
        DedupJobConfig smallRequests = DedupJobConfig.builder().arguments(required).kafkaProperty("max.request.size", "500000").build();
        assertThat(KafkaConnectors.producerMaxRequestSize(smallRequests)).isEqualTo(500_000);
        assertThat(KafkaConnectors.deadLetterSerializer(smallRequests, 1_048_588).maxBytes())
                .isEqualTo(KafkaConnectors.deadLetterMaxBytes(500_000, 500_000));
        assertThatThrownBy(() -> KafkaConnectors.deadLetterSerializer(defaults, 2_000))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("--dlq-topic dlq").hasMessageContaining("2000");
        DedupJobConfig invalid = DedupJobConfig.builder().arguments(required).kafkaProperty("max.request.size", "lots").build();
        assertThatThrownBy(() -> KafkaConnectors.producerMaxRequestSize(invalid)).hasMessageContaining("--kafka.max.request.size");
    }

    @Test
    void theSinksCompressWithLz4InBatchesOf64KibUnlessTheUserSetsOtherwise() {
        String[] required = {"--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq",
            "--capacity", "1000"};
        Properties defaults = KafkaConnectors.producerProperties(DedupJobConfig.parse(required));
        assertThat(defaults.getProperty("compression.type")).isEqualTo("lz4");
        assertThat(defaults.getProperty("batch.size")).isEqualTo("65536");
        assertThat(defaults.getProperty("max.request.size")).isEqualTo(Integer.toString(2 * 1024 * 1024));
        Properties chosen = KafkaConnectors.producerProperties(DedupJobConfig.builder().arguments(required)
                .kafkaProperty("compression.type", "zstd").kafkaProperty("batch.size", "16384").build());
        assertThat(chosen.getProperty("compression.type")).isEqualTo("zstd");
        assertThat(chosen.getProperty("batch.size")).isEqualTo("16384");
    }

    @Test
    void theSourceFetchesResponsesBelowG1sHumongousSizeUnlessTheUserSetsOtherwise() {
        String[] required = {"--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq",
            "--capacity", "1000"};
        Properties defaults = KafkaConnectors.consumerProperties(DedupJobConfig.builder().arguments(required)
                .kafkaProperty("security.protocol", "SSL").build());
        assertThat(Integer.parseInt(defaults.getProperty("fetch.max.bytes"))).isEqualTo(256 * 1024)
                .isLessThan(ConsumerDefaults.SMALLEST_HUMONGOUS_BYTES);
        assertThat(defaults.getProperty("security.protocol")).isEqualTo("SSL");
        Properties chosen = KafkaConnectors.consumerProperties(DedupJobConfig.builder().arguments(required)
                .kafkaProperty("fetch.max.bytes", "52428800").build());
        assertThat(chosen.getProperty("fetch.max.bytes")).isEqualTo("52428800");
    }
}
