package io.impressiondedup.tools.replay;

import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A record of the dead-letter topic read by the header contract of {@code docs/DEAD-LETTERS.md}: why it was
 * set aside and where from, and the original record it carries: {@link #notOurs()} and {@link
 * #timestampUnknown()} say why it cannot be replayed at all, {@link #missing()} what of the original it
 * lacks; each is {@code null} where there is nothing to say.
 */
final class DeadLetterRecord {

    private final ConsumerRecord<byte[], byte[]> record;
    private final String reason;
    private final String sourceTopic;
    private final Integer sourcePartition;
    private final Long sourceOffset;
    private final Long originalTimestamp;
    private final boolean truncated;
    private final boolean headersDropped;
    private final Long droppedHeaders;
    private final Long originalKeySize;
    private final Long originalValueSize;

    DeadLetterRecord(ConsumerRecord<byte[], byte[]> record) {
        this.record = record;
        reason = text(DeadLetterHeaders.REASON);
        sourceTopic = text(DeadLetterHeaders.SOURCE_TOPIC);
        sourcePartition = number(DeadLetterHeaders.SOURCE_PARTITION) == null ? null : number(DeadLetterHeaders.SOURCE_PARTITION).intValue();
        sourceOffset = number(DeadLetterHeaders.SOURCE_OFFSET);
        Long timestampHeader = number(DeadLetterHeaders.SOURCE_TIMESTAMP);
        // A dead letter without dedup.source.timestamp (from a job of state v2 or earlier) carries the original timestamp as its CreateTime.
        originalTimestamp = timestampHeader != null ? timestampHeader
                : record.timestampType() == TimestampType.CREATE_TIME && record.timestamp() >= 0 ? record.timestamp() : null;
        truncated = record.headers().lastHeader(DeadLetterHeaders.TRUNCATED) != null;
        headersDropped = record.headers().lastHeader(DeadLetterHeaders.DROPPED_HEADERS) != null;
        droppedHeaders = number(DeadLetterHeaders.DROPPED_HEADERS);
        originalKeySize = number(DeadLetterHeaders.ORIGINAL_KEY_SIZE);
        originalValueSize = number(DeadLetterHeaders.ORIGINAL_SIZE);
    }

    /** Why this record is not a dead letter of the job (it lacks a header every one has), or {@code null} if it is one. */
    String notOurs() {
        if (reason == null || sourceTopic == null || sourcePartition == null || sourceOffset == null) {
            return "it lacks " + DeadLetterHeaders.REASON + ", " + DeadLetterHeaders.SOURCE_TOPIC + ", " + DeadLetterHeaders.SOURCE_PARTITION
                    + " or " + DeadLetterHeaders.SOURCE_OFFSET + " (or one is not a number)";
        }
        return null;
    }

    /** Why the original's timestamp is unknown, or {@code null} if it is known. */
    String timestampUnknown() {
        if (originalTimestamp == null) {
            return "no " + DeadLetterHeaders.SOURCE_TIMESTAMP + " and a " + record.timestampType() + " timestamp";
        }
        return null;
    }

    /**
     * What of the original this dead letter lacks, or {@code null} if it is a faithful copy: its headers
     * ({@link DeadLetterHeaders#DROPPED_HEADERS}), the end of its value or of its key ({@link
     * DeadLetterHeaders#TRUNCATED}, {@link DeadLetterHeaders#ORIGINAL_KEY_SIZE}). Those two headers are what
     * tell, never {@code dedup.error}'s words.
     */
    String missing() {
        List<String> missing = new ArrayList<>();
        if (headersDropped) {
            missing.add((droppedHeaders == null ? "its" : "its " + droppedHeaders) + " headers (" + DeadLetterHeaders.DROPPED_HEADERS + ")");
        }
        if (truncated) {
            missing.add(record.value() == null ? "some of its bytes (" + DeadLetterHeaders.TRUNCATED + ")"
                    : "the end of its value (" + DeadLetterHeaders.TRUNCATED + ": " + record.value().length + " of "
                            + (originalValueSize == null ? "?" : originalValueSize) + " bytes kept)");
        }
        if (originalKeySize != null) {
            missing.add("the end of its key (" + DeadLetterHeaders.ORIGINAL_KEY_SIZE + ": " + (record.key() == null ? 0 : record.key().length)
                    + " of " + originalKeySize + " bytes kept)");
        }
        return missing.isEmpty() ? null : String.join(", ", missing);
    }

    String reason() {
        return reason;
    }

    String sourceTopic() {
        return sourceTopic;
    }

    Integer sourcePartition() {
        return sourcePartition;
    }

    /** The dead letter's own timestamp in the dead-letter topic (what {@code --from-time} and {@code --until-time} select on). */
    long timestamp() {
        return record.timestamp();
    }

    /** "topic-partition@offset" of this dead letter. */
    String position() {
        return record.topic() + '-' + record.partition() + '@' + record.offset();
    }

    /** "topic-partition@offset" of the original record. */
    String source() {
        return sourceTopic + '-' + sourcePartition + '@' + sourceOffset;
    }

    /** The original record for {@code topic}: its key, value, own headers (no {@code dedup.*}) and timestamp; Kafka picks the partition from the key. */
    ProducerRecord<byte[], byte[]> original(String topic) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            if (!header.key().startsWith(DeadLetterHeaders.PREFIX)) {
                headers.add(header.key(), header.value());
            }
        }
        return new ProducerRecord<>(topic, null, originalTimestamp, record.key(), record.value(), headers);
    }

    private String text(String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private Long number(String name) {
        String text = text(name);
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
