package io.impressiondedup.job.io.kafka;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records the sinks write. Output and audit records are the input record unchanged: key, value,
 * headers and timestamp; the partition is left to Kafka's key hash. Dead letters are the input record
 * plus {@link DeadLetterHeaders}, cut to fit the dead-letter topic where they would not.
 */
public final class KafkaRecords {

    private KafkaRecords() {}

    /**
     * Writes impressions to one topic, byte for byte as read, and measures each one's delay from its
     * Kafka timestamp to this write in the sink's histogram {@value OutputWriteDelay#METRIC} ({@link
     * OutputWriteDelay} says what that delay covers and what it leaves out: the wait for the commit).
     */
    public static final class Unchanged implements KafkaRecordSerializationSchema<Impression>, KafkaDatasetFacetProvider {
        private static final long serialVersionUID = 1L;
        private final String topic;
        private transient OutputWriteDelay writeDelay;

        public Unchanged(String topic) {
            this.topic = topic;
        }

        /**
         * Registers the histogram once. The exactly-once writer opens its serializer twice (in {@code
         * KafkaWriter}'s constructor and again in {@code ExactlyOnceKafkaWriter}'s, connector 5.0), and a
         * second registration under the same name is refused by the metric group ("name collision") while
         * the serializer would go on updating that unreported second histogram.
         */
        @Override
        public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
            NativeLz4.load(); // before the first batch is written
            if (writeDelay == null) {
                writeDelay = OutputWriteDelay.register(context.getMetricGroup());
            }
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(Impression impression, KafkaSinkContext context, Long timestamp) {
            RawKafkaRecord raw = impression.raw();
            writeDelay.record(raw.timestamp(), System.currentTimeMillis());
            return new ProducerRecord<>(topic, null, raw.timestamp() >= 0 ? raw.timestamp() : null, raw.key(), raw.value(), headersOf(raw));
        }

        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
        }
    }

    /**
     * Writes dead letters: the original record plus the reason, message and source position, cut to
     * fit the dead-letter topic if it is larger than {@code maxBytes} (the contract: {@link
     * DeadLetterHeaders}). Sizes are counted as {@link #sizeUpperBound} does, the way Kafka's producer
     * checks {@code max.request.size}.
     */
    public static final class DeadLetters implements KafkaRecordSerializationSchema<DeadLetter>, KafkaDatasetFacetProvider {
        private static final long serialVersionUID = 1L;
        private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
        private static final byte[] EMPTY = new byte[0];
        /** How much a length's varint can grow from 1 byte (length 0) once the bytes are put back. */
        private static final int VARINT_GROWTH = 4;

        private final String topic;
        private final int maxBytes;
        private transient MessageDigest sha256;
        private transient boolean truncatedBefore;

        /** @param maxBytes the largest dead letter to write, as counted by {@link #sizeUpperBound} */
        public DeadLetters(String topic, int maxBytes) {
            this.topic = topic;
            this.maxBytes = maxBytes;
        }

        /** The largest dead letter this writes. */
        public int maxBytes() {
            return maxBytes;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(DeadLetter deadLetter, KafkaSinkContext context, Long timestamp) {
            RawKafkaRecord raw = deadLetter.raw();
            RecordHeaders headers = headersOf(raw);
            addDeadLetterHeaders(headers, deadLetter);
            if (sizeUpperBound(raw.key(), raw.value(), headers) <= maxBytes) {
                return record(raw, raw.key(), raw.value(), headers);
            }
            return truncated(deadLetter);
        }

        private ProducerRecord<byte[], byte[]> truncated(DeadLetter deadLetter) {
            RawKafkaRecord raw = deadLetter.raw();
            byte[] key = raw.key();
            byte[] value = raw.value();
            RecordHeaders headers = headersOf(raw);
            addTruncationHeaders(headers, deadLetter, value);
            if (sizeUpperBound(key, EMPTY, headers) + VARINT_GROWTH > maxBytes && raw.headerCount() > 0
                    && !ImpressionDeserializationSchema.headersDroppedAtSource(raw)) {
                headers = new RecordHeaders();
                addTruncationHeaders(headers, deadLetter, value);
                headers.add(DeadLetterHeaders.DROPPED_HEADERS, utf8(Integer.toString(raw.headerCount())));
            }
            if (key != null && sizeUpperBound(key, EMPTY, headers) + VARINT_GROWTH > maxBytes) {
                headers.add(DeadLetterHeaders.ORIGINAL_KEY_SIZE, utf8(Integer.toString(key.length)));
                long keyRoom = maxBytes - sizeUpperBound(EMPTY, EMPTY, headers) - 2L * VARINT_GROWTH;
                key = Arrays.copyOf(key, (int) Math.max(0, Math.min(key.length, keyRoom)));
            }
            long valueRoom = maxBytes - sizeUpperBound(key, EMPTY, headers) - VARINT_GROWTH;
            byte[] kept = value == null ? null : Arrays.copyOf(value, (int) Math.max(0, Math.min(value.length, valueRoom)));
            if (!truncatedBefore) {
                truncatedBefore = true;
                LOG.warn("Dead letter {} ({}) truncated to fit {} bytes, the most the dead-letter topic {} takes: value {} of {} bytes"
                        + " kept (later truncations are not logged; they carry the header {})", raw.position(),
                        deadLetter.reason().headerValue(), maxBytes, topic, kept == null ? 0 : kept.length, value == null ? 0 : value.length,
                        DeadLetterHeaders.TRUNCATED);
            }
            return record(raw, key, kept, headers);
        }

        private void addTruncationHeaders(RecordHeaders headers, DeadLetter deadLetter, byte[] value) {
            addDeadLetterHeaders(headers, deadLetter);
            headers.add(DeadLetterHeaders.TRUNCATED, utf8("true"));
            headers.add(DeadLetterHeaders.ORIGINAL_SIZE, utf8(Integer.toString(value == null ? -1 : value.length)));
            if (value != null) {
                headers.add(DeadLetterHeaders.PAYLOAD_SHA256, utf8(sha256Hex(value)));
            }
        }

        private String sha256Hex(byte[] value) {
            if (sha256 == null) {
                try {
                    sha256 = MessageDigest.getInstance("SHA-256");
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException("Every Java platform has SHA-256", e);
                }
            }
            return HexFormat.of().formatHex(sha256.digest(value));
        }

        private ProducerRecord<byte[], byte[]> record(RawKafkaRecord raw, byte[] key, byte[] value, RecordHeaders headers) {
            return new ProducerRecord<>(topic, null, raw.timestamp() >= 0 ? raw.timestamp() : null, key, value, headers);
        }

        private static void addDeadLetterHeaders(RecordHeaders headers, DeadLetter deadLetter) {
            RawKafkaRecord raw = deadLetter.raw();
            headers.add(DeadLetterHeaders.REASON, utf8(deadLetter.reason().headerValue()));
            headers.add(DeadLetterHeaders.ERROR, utf8(deadLetter.error()));
            headers.add(DeadLetterHeaders.SOURCE_TOPIC, utf8(raw.topic()));
            headers.add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(raw.partition())));
            headers.add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(raw.offset())));
            if (raw.timestamp() >= 0) {
                headers.add(DeadLetterHeaders.SOURCE_TIMESTAMP, utf8(Long.toString(raw.timestamp())));
            }
        }

        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
        }
    }

    /** Bytes of a batch's header ({@code DefaultRecordBatch.RECORD_BATCH_OVERHEAD}, record format v2). */
    static final int RECORD_BATCH_OVERHEAD = 61;
    /** Most bytes of a record's own fields: length, attributes, timestamp and offset deltas ({@code DefaultRecord.MAX_RECORD_OVERHEAD}). */
    static final int MAX_RECORD_OVERHEAD = 21;

    /**
     * The size of a record alone in a batch, uncompressed, as Kafka's producer bounds it before
     * checking {@code max.request.size} ({@code AbstractRecords.estimateSizeInBytesUpperBound}, record
     * format v2): batch and record overhead, and each of key, value and header key and value with its
     * varint length (a null one: one byte).
     */
    static long sizeUpperBound(byte[] key, byte[] value, Iterable<Header> headers) {
        long size = RECORD_BATCH_OVERHEAD + MAX_RECORD_OVERHEAD + sizeWithLength(key) + sizeWithLength(value);
        int count = 0;
        for (Header header : headers) {
            long keyLength = ImpressionDeserializationSchema.utf8Length(header.key());
            size += varintSize(keyLength) + keyLength + sizeWithLength(header.value());
            count++;
        }
        return size + varintSize(count);
    }

    private static long sizeWithLength(byte[] bytes) {
        return bytes == null ? 1 : varintSize(bytes.length) + bytes.length;
    }

    /** Bytes of Kafka's zig-zag varint of a non-negative int ({@code ByteUtils.sizeOfVarint}). */
    private static int varintSize(long value) {
        long zigZag = value << 1;
        int bytes = 1;
        while ((zigZag & 0xffffffffffffff80L) != 0) {
            bytes++;
            zigZag >>>= 7;
        }
        return bytes;
    }

    static RecordHeaders headersOf(RawKafkaRecord raw) {
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < raw.headerCount(); i++) {
            headers.add(raw.headerKey(i), raw.headerValue(i));
        }
        return headers;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
