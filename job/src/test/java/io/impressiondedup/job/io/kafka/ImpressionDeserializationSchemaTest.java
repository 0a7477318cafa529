package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.ParsedRecordSerializer;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The limits applied at the source, before parsing: a record with too many headers (malformed) or
 * too many bytes, headers included (oversized), becomes one dead letter without its headers, never an
 * exception; whatever the source emits crosses Flink's network (the keyBy shuffle) intact.
 */
class ImpressionDeserializationSchemaTest {

    static final long TS = System.currentTimeMillis();
    static final String IMPRESSION = "{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":" + TS + "}";
    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    static ConsumerRecord<byte[], byte[]> record(String value, RecordHeaders headers) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>("in", 3, 77L, TS, TimestampType.CREATE_TIME, KEY.length, bytes.length, KEY, bytes, headers,
                java.util.Optional.empty());
    }

    static RecordHeaders headers(int count, String key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < count; i++) {
            headers.add(key, value);
        }
        return headers;
    }

    static List<ParsedRecord> deserialize(ImpressionDeserializationSchema schema, ConsumerRecord<byte[], byte[]> record) {
        List<ParsedRecord> out = new ArrayList<>();
        schema.deserialize(record, new ListCollector<>(out));
        return out;
    }

    /** What the keyBy shuffle or any non-chained edge does to a record: serialize it and read it back. */
    static ParsedRecord acrossTheNetwork(ParsedRecord record) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        ParsedRecordSerializer.INSTANCE.serialize(record, out);
        return ParsedRecordSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    static ParserSettings maxRecordBytes(int bytes) {
        return new ParserSettings("requestId", "adId", "ts", bytes, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME);
    }

    /** The source kept none of the record's headers, only the marker with their count, and the sink writes that marker once. */
    static void assertOnlyTheDroppedHeadersMarker(DeadLetter deadLetter, String count) {
        assertThat(deadLetter.raw().headerCount()).as("the headers of %s", deadLetter).isEqualTo(1);
        assertThat(deadLetter.raw().headerKey(0)).isEqualTo(DeadLetterHeaders.DROPPED_HEADERS);
        assertThat(new String(deadLetter.raw().headerValue(0), StandardCharsets.US_ASCII)).isEqualTo(count);
        Header[] written = new KafkaRecords.DeadLetters("dlq", Integer.MAX_VALUE).serialize(deadLetter, null, null).headers().toArray();
        assertThat(written).extracting(Header::key).allMatch(k -> k.startsWith(DeadLetterHeaders.PREFIX))
                .filteredOn(DeadLetterHeaders.DROPPED_HEADERS::equals).hasSize(1);
        assertThat(KafkaRecordsTest.header(new KafkaRecords.DeadLetters("dlq", Integer.MAX_VALUE).serialize(deadLetter, null, null),
                DeadLetterHeaders.DROPPED_HEADERS)).isEqualTo(count);
    }

    @Test
    void seventyThousandHeadersMakeOneMalformedDeadLetterWithoutHeadersAndNoException() throws IOException {
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(ParserSettings.defaults());

        List<ParsedRecord> out = deserialize(schema, record(IMPRESSION, headers(70_000, "h", new byte[] {1})));

        assertThat(out).hasSize(1);
        assertThat(out.get(0).isImpression()).as("a record with 70,000 headers is not admitted").isFalse();
        DeadLetter deadLetter = out.get(0).deadLetter();
        assertThat(deadLetter.reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(deadLetter.error()).contains("70000 headers").contains("--max-headers 64").contains("dropped");
        assertOnlyTheDroppedHeadersMarker(deadLetter, "70000");
        assertThat(new String(deadLetter.raw().value(), StandardCharsets.UTF_8)).isEqualTo(IMPRESSION);
        assertThat(deadLetter.raw().key()).isEqualTo(KEY);
        assertThat(deadLetter.raw().position()).isEqualTo("in-3@77");
        assertThat(acrossTheNetwork(out.get(0))).isEqualTo(out.get(0));
    }

    @Test
    void headerBytesCountTowardsMaxRecordBytes() throws IOException {
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(maxRecordBytes(1000));
        // key 1 + value ~45 bytes: far below the limit alone; 10 headers of 1 + 100 bytes take it over.
        List<ParsedRecord> out = deserialize(schema, record(IMPRESSION, headers(10, "h", new byte[100])));

        assertThat(out).hasSize(1);
        assertThat(out.get(0).isImpression()).as("key + value + headers exceed --max-record-bytes").isFalse();
        DeadLetter deadLetter = out.get(0).deadLetter();
        assertThat(deadLetter.reason()).isEqualTo(DeadLetterReason.OVERSIZED);
        int expected = KEY.length + IMPRESSION.length() + 10 * 101;
        assertThat(deadLetter.error()).contains(expected + " bytes").contains("10 headers").contains("--max-record-bytes 1000")
                .contains("headers alone are 1010 bytes").contains("dropped");
        assertOnlyTheDroppedHeadersMarker(deadLetter, "10");
        assertThat(new String(deadLetter.raw().value(), StandardCharsets.UTF_8)).isEqualTo(IMPRESSION);
        assertThat(acrossTheNetwork(out.get(0))).isEqualTo(out.get(0));
    }

    @Test
    void aRecordOversizedByItsValueKeepsItsHeadersWithinTheLimits() throws IOException {
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(maxRecordBytes(1000));
        String big = IMPRESSION.replace("}", ",\"pad\":\"" + "x".repeat(2000) + "\"}");
        RecordHeaders headers = headers(3, "trace", new byte[] {1, 2});

        ParsedRecord out = deserialize(schema, record(big, headers)).get(0);

        assertThat(out.isImpression()).isFalse();
        assertThat(out.deadLetter().reason()).isEqualTo(DeadLetterReason.OVERSIZED);
        assertThat(out.deadLetter().error()).contains("--max-record-bytes 1000").doesNotContain("dropped");
        assertThat(out.deadLetter().raw().headerCount()).isEqualTo(3);
        assertThat(out.deadLetter().raw().headerKey(2)).isEqualTo("trace");
        assertThat(acrossTheNetwork(out)).isEqualTo(out);
    }

    @Test
    void recordsExactlyAtTheLimitsAreImpressionsWithAllTheirHeaders() throws IOException {
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(ParserSettings.defaults());
        ParsedRecord atHeaderLimit = deserialize(schema, record(IMPRESSION, headers(64, "h", new byte[] {1}))).get(0);
        assertThat(atHeaderLimit.isImpression()).isTrue();
        assertThat(atHeaderLimit.impression().raw().headerCount()).isEqualTo(64);
        assertThat(acrossTheNetwork(atHeaderLimit)).isEqualTo(atHeaderLimit);
        ParsedRecord overHeaderLimit = deserialize(schema, record(IMPRESSION, headers(65, "h", new byte[] {1}))).get(0);
        assertThat(overHeaderLimit.isImpression()).isFalse();
        assertThat(overHeaderLimit.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(overHeaderLimit.deadLetter().error()).contains("65 headers");

        // Header keys count in UTF-8 ("\u00e9" is 2 bytes), null header values as 0 bytes.
        RecordHeaders headers = headers(2, "\u00e9", null);
        headers.add("t", new byte[3]);
        int size = KEY.length + IMPRESSION.length() + 2 * 2 + 1 + 3;
        ParsedRecord atByteLimit = deserialize(new ImpressionDeserializationSchema(maxRecordBytes(size)), record(IMPRESSION, headers)).get(0);
        assertThat(atByteLimit.isImpression()).isTrue();
        assertThat(atByteLimit.impression().raw().headerCount()).isEqualTo(3);
        assertThat(atByteLimit.impression().raw().headerValue(0)).isNull();
        ParsedRecord overByteLimit = deserialize(new ImpressionDeserializationSchema(maxRecordBytes(size - 1)), record(IMPRESSION, headers))
                .get(0);
        assertThat(overByteLimit.isImpression()).isFalse();
        assertThat(overByteLimit.deadLetter().reason()).isEqualTo(DeadLetterReason.OVERSIZED);
        assertThat(overByteLimit.deadLetter().error()).contains(size + " bytes");
    }

    @Test
    void aHugeHeaderCountOrSizeNeverThrows() {
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(ParserSettings.defaults());
        RecordHeaders big = headers(3, "big", new byte[1 << 20]);
        assertThatCode(() -> deserialize(schema, record(IMPRESSION, big))).doesNotThrowAnyException();
        assertThatCode(() -> deserialize(schema, record("not json", headers(200_000, "", null)))).doesNotThrowAnyException();
    }

    @Test
    void theFormatCarriesWhatTheSourceAdmitsAtItsHighestSettingPlusTheJobsOwnHeader() throws IOException {
        DedupJobConfig config = DedupJobConfig.parse("--bootstrap-servers", "b:9092", "--input-topic", "in", "--output-topic", "out",
                "--dlq-topic", "dlq", "--capacity", "1000", "--max-record-bytes", Integer.toString(1 << 20),
                "--max-headers", Integer.toString(RawKafkaRecord.MAX_ADMITTED_HEADERS));
        assertThat(DedupJobConfig.parse("--bootstrap-servers", "b:9092", "--input-topic", "in", "--output-topic", "out",
                "--dlq-topic", "dlq", "--capacity", "1000").maxHeaders()).isEqualTo(64);
        ImpressionDeserializationSchema schema = new ImpressionDeserializationSchema(config.parserSettings(), config.maxHeaders());

        ParsedRecord admitted = deserialize(schema, record(IMPRESSION, headers(config.maxHeaders(), "h", null))).get(0);

        assertThat(admitted.isImpression()).isTrue();
        // what the dedup operator does to a late record under --late-policy emit, before the record crosses the network again
        ParsedRecord late = ParsedRecord.of(admitted.impression().withRaw(admitted.impression().raw().withHeader("dedup.late", new byte[] {1})));
        assertThat(acrossTheNetwork(late)).isEqualTo(late);
        assertThat(RawKafkaRecord.MAX_ADMITTED_HEADERS + RawKafkaRecord.HEADERS_RESERVED_FOR_THE_JOB).isEqualTo(RawKafkaRecord.MAX_HEADERS);
    }

    @Test
    void maxHeadersIsBoundedByWhatTheFormatCarries() {
        String[] required = {"--bootstrap-servers", "b:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq",
            "--capacity", "1000"};
        assertThatThrownBy(() -> DedupJobConfig.builder().arguments(required)
                .arguments("--max-headers", Integer.toString(RawKafkaRecord.MAX_ADMITTED_HEADERS + 1)).build())
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("--max-headers");
        assertThatThrownBy(() -> DedupJobConfig.builder().arguments(required).arguments("--max-headers", "-1").build())
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("--max-headers");
        assertThat(DedupJobConfig.builder().arguments(required).arguments("--max-headers", "0").build().maxHeaders()).isZero();
        assertThat(DedupJobOptions.ALL).contains(DedupJobOptions.MAX_HEADERS);
    }
}
