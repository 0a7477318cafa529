package io.impressiondedup.job.io.kafka;

import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.stats.StatsCounts;
import io.impressiondedup.operators.stats.StatsKey;
import io.impressiondedup.operators.stats.StatsRow;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes reconciliation rows ({@link StatsRow}) to the stats topic. A contract billing reads (see
 * docs/RECONCILIATION.md): field names never change, fields may be added.
 *
 * <p>Key: {@code <topic>/<partition>/<hour>}, e.g. {@code impressions/3/2026-11-23T10:00:00Z}, so the
 * rows of one (partition, hour) share a Kafka partition and stay in order. Value, JSON:
 * <pre>
 * {"topic":"impressions","partition":3,"hour":"2026-11-23T10:00:00Z","hourStartMillis":1795428000000,
 *  "closedAtMillis":1795431600000,"kind":"complete","input":10,"unique":7,"duplicates":2,"late":0,"deadLettered":1,
 *  "deadLetteredByReason":{"malformed":1,"oversized":0,"future-timestamp":0,"schema-unknown":0}}
 * </pre>
 * {@code kind} is {@code complete} for the hour's first row, {@code amendment} for the later ones; {@code
 * closedAtMillis} is the watermark at which the row closed. {@code deadLetteredByReason} lists every
 * reason the router dead-letters, zeros included; late records are in {@code late}, never in it. The
 * Kafka timestamp is left to the producer (the write time): a close time can be {@code Long.MAX_VALUE}
 * at the end of a bounded input, which brokers would refuse. Topic names are ASCII letters, digits,
 * {@code . _ -}, so nothing needs escaping.
 */
public final class StatsRows implements KafkaRecordSerializationSchema<StatsRow>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    /** The reasons in {@code deadLetteredByReason}: those the router dead-letters (late records are counted as late). */
    static final List<DeadLetterReason> DEAD_LETTER_REASONS = List.of(DeadLetterReason.MALFORMED, DeadLetterReason.OVERSIZED,
            DeadLetterReason.FUTURE_TIMESTAMP, DeadLetterReason.SCHEMA_UNKNOWN);

    private final String topic;

    public StatsRows(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(StatsRow row, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(topic, null, null, key(row.key()).getBytes(StandardCharsets.UTF_8),
                json(row).getBytes(StandardCharsets.UTF_8));
    }

    /** The row's Kafka key: {@code <topic>/<partition>/<hour ISO>}. */
    public static String key(StatsKey key) {
        return key.topic() + "/" + key.partition() + "/" + Instant.ofEpochMilli(key.hourStart());
    }

    /** The row's JSON value. */
    public static String json(StatsRow row) {
        StatsKey key = row.key();
        StatsCounts counts = row.counts();
        StringBuilder json = new StringBuilder(320)
                .append("{\"topic\":\"").append(key.topic())
                .append("\",\"partition\":").append(key.partition())
                .append(",\"hour\":\"").append(Instant.ofEpochMilli(key.hourStart()))
                .append("\",\"hourStartMillis\":").append(key.hourStart())
                .append(",\"closedAtMillis\":").append(key.closeTime())
                .append(",\"kind\":\"").append(row.complete() ? "complete" : "amendment")
                .append("\",\"input\":").append(counts.input())
                .append(",\"unique\":").append(counts.unique())
                .append(",\"duplicates\":").append(counts.duplicates())
                .append(",\"late\":").append(counts.late())
                .append(",\"deadLettered\":").append(counts.deadLettered())
                .append(",\"deadLetteredByReason\":{");
        for (int i = 0; i < DEAD_LETTER_REASONS.size(); i++) {
            DeadLetterReason reason = DEAD_LETTER_REASONS.get(i);
            json.append(i == 0 ? "" : ",").append('"').append(reason.headerValue()).append("\":").append(counts.deadLettered(reason));
        }
        return json.append("}}").toString();
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
    }
}
