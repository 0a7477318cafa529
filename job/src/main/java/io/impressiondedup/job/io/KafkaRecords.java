package io.impressiondedup.job.io;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The records the sinks write. Output and audit records are the input record unchanged: key, value,
 * headers and timestamp; the partition is left to Kafka's key hash. Dead letters are the input record
 * plus {@link DeadLetterHeaders}.
 */
public final class KafkaRecords {

    private KafkaRecords() {}

    /** Writes impressions to one topic, byte for byte as read. */
    public static final class Unchanged implements KafkaRecordSerializationSchema<Impression>, KafkaDatasetFacetProvider {
        private static final long serialVersionUID = 1L;
        private final String topic;

        public Unchanged(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(Impression impression, KafkaSinkContext context, Long timestamp) {
            RawKafkaRecord raw = impression.raw();
            return new ProducerRecord<>(topic, null, raw.timestamp() >= 0 ? raw.timestamp() : null, raw.key(), raw.value(), headersOf(raw));
        }

        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
        }
    }

    /** Writes dead letters: the original record plus the reason, message and source position. */
    public static final class DeadLetters implements KafkaRecordSerializationSchema<DeadLetter>, KafkaDatasetFacetProvider {
        private static final long serialVersionUID = 1L;
        private final String topic;

        public DeadLetters(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(DeadLetter deadLetter, KafkaSinkContext context, Long timestamp) {
            RawKafkaRecord raw = deadLetter.raw();
            RecordHeaders headers = headersOf(raw);
            headers.add(DeadLetterHeaders.REASON, utf8(deadLetter.reason().headerValue()));
            headers.add(DeadLetterHeaders.ERROR, utf8(deadLetter.error()));
            headers.add(DeadLetterHeaders.SOURCE_TOPIC, utf8(raw.topic()));
            headers.add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(raw.partition())));
            headers.add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(raw.offset())));
            return new ProducerRecord<>(topic, null, raw.timestamp() >= 0 ? raw.timestamp() : null, raw.key(), raw.value(), headers);
        }

        @Override
        public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
            return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
        }
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
