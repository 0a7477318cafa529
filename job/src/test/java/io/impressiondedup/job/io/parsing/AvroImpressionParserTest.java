package io.impressiondedup.job.io.parsing;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.ValueFormat;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Avro input's parser: the reader, the shared event-time rules and the shared assembler, record by record. */
class AvroImpressionParserTest {

    private static final long NOW = 1_763_812_800_000L; // 2025-11-22T12:00:00Z

    /** Fields inside a record, as an exchange would nest them; the event time a string or epoch millis. */
    private static final String NESTED = "{\"type\":\"record\",\"name\":\"Bid\",\"fields\":["
            + "{\"name\":\"imp\",\"type\":{\"type\":\"record\",\"name\":\"Imp\",\"fields\":["
            + "{\"name\":\"requestId\",\"type\":\"string\"},{\"name\":\"adId\",\"type\":[\"null\",\"string\",\"long\"]}]}},"
            + "{\"name\":\"ts\",\"type\":[\"long\",\"string\"]}]}";
    private static final Schema SCHEMA = new Schema.Parser().parse(NESTED);

    private static ParserSettings nested(AvroWirePrefix prefix, OptionalInt schemaId) {
        return new ParserSettings("/imp/requestId", "/imp/adId", "ts", 4096, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME)
                .withAvro(NESTED, prefix, schemaId);
    }

    private static final RecordParser PARSER = RecordParser.of(nested(AvroWirePrefix.NONE, OptionalInt.empty()), () -> NOW);

    private static byte[] encode(String requestId, Object adId, Object ts) throws Exception {
        GenericRecord imp = new GenericData.Record(SCHEMA.getField("imp").schema());
        imp.put("requestId", requestId);
        imp.put("adId", adId);
        GenericRecord bid = new GenericData.Record(SCHEMA);
        bid.put("imp", imp);
        bid.put("ts", ts);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(SCHEMA).write(bid, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static RawKafkaRecord raw(byte[] value) {
        return new RawKafkaRecord("in", 1, 42, NOW, null, value, null, null);
    }

    private static void assertMalformed(ParsedRecord parsed, String error) {
        assertThat(parsed.isImpression()).as("%s", parsed).isFalse();
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).isEqualTo(error);
    }

    @Test
    void anIntegerAdIdAndItsTextAreOneIdentityAsInJson() throws Exception {
        ParsedRecord number = PARSER.parse(raw(encode("r-1", 7L, NOW - 1000)));
        ParsedRecord text = PARSER.parse(raw(encode("r-1", "7", "2025-11-22T11:59:59Z")));
        assertThat(number.impression().requestId()).isEqualTo("r-1");
        assertThat(number.impression().adId()).isEqualTo(text.impression().adId());
        assertThat(number.impression().eventTime()).isEqualTo(NOW - 1000).isEqualTo(text.impression().eventTime());
        assertThat(number.impression().digestHigh()).isEqualTo(text.impression().digestHigh());
    }

    @Test
    void deadLettersNameTheFieldByItsPath() throws Exception {
        assertMalformed(PARSER.parse(raw(encode("r", null, NOW))), "missing field '/imp/adId'");
        assertMalformed(PARSER.parse(raw(encode("", "a", NOW))), "'/imp/requestId': must be a non-empty string, but is empty");
        assertMalformed(PARSER.parse(raw(encode("r", "a", "yesterday"))),
                "'/ts' must be epoch milliseconds or an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z), but is a string yesterday");
        assertMalformed(PARSER.parse(raw(encode("r", "a", -5L))),
                "'/ts' -5 (1969-12-31T23:59:59.995Z) is before --min-event-time 2000-01-01T00:00:00Z");
        ParsedRecord future = PARSER.parse(raw(encode("r", "a", NOW + Duration.ofDays(1).toMillis())));
        assertThat(future.deadLetter().reason()).isEqualTo(DeadLetterReason.FUTURE_TIMESTAMP);
    }

    @Test
    void aMissingTopLevelFieldIsNamedByItsPointerAsEveryAvroField() {
        RecordParser flat = RecordParser.of(ParserSettings.defaults().withAvro("{\"type\":\"record\",\"name\":\"F\",\"fields\":["
                + "{\"name\":\"requestId\",\"type\":\"string\"},{\"name\":\"adId\",\"type\":[\"null\",\"long\"]},"
                + "{\"name\":\"ts\",\"type\":[\"null\",\"long\"]}]}", AvroWirePrefix.NONE, OptionalInt.empty()), () -> NOW);
        // requestId "r", adId null (branch 0), ts null
        assertMalformed(flat.parse(raw(new byte[] {2, 'r', 0, 0})), "missing field '/adId'");
        // requestId "r", adId 3 (branch 1, zigzag 6), ts null
        assertMalformed(flat.parse(raw(new byte[] {2, 'r', 2, 6, 0})), "missing field '/ts'");
    }

    @Test
    void recordLevelErrorsSaySo() throws Exception {
        byte[] good = encode("r", "a", NOW);
        assertThat(PARSER.parse(raw(good)).isImpression()).isTrue();
        assertThat(PARSER.parse(raw(Arrays.copyOf(good, good.length - 1))).deadLetter().error()).contains("truncated");
        assertMalformed(PARSER.parse(raw(Arrays.copyOf(good, good.length + 2))),
                "2 trailing bytes after the record, at byte " + good.length + " of " + (good.length + 2));
        assertMalformed(PARSER.parse(raw(null)), "null value (tombstone)");
        assertMalformed(PARSER.parse(raw(new byte[0])), "empty value");

        RecordParser confluent = RecordParser.of(nested(AvroWirePrefix.CONFLUENT, OptionalInt.of(7)), () -> NOW);
        assertThat(confluent.parse(raw(prefixed(7, good))).isImpression()).isTrue();
        assertMalformed(confluent.parse(raw(prefixed(9, good))), "unexpected schema id 9 in the confluent wire prefix, expected 7");
        assertMalformed(confluent.parse(raw(good)), String.format("wrong magic byte 0x%02X: the confluent wire prefix begins with 0x00",
                good[0] & 0xFF));
    }

    @Test
    void aRecordOverTheSizeLimitIsOversizedBeforeItIsRead() {
        byte[] big = new byte[5000];
        ParsedRecord parsed = PARSER.parse(raw(big));
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.OVERSIZED);
        assertThat(parsed.deadLetter().error()).isEqualTo("record of 5000 bytes exceeds --max-record-bytes 4096");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 3})
    void everyGeneratedAvroRecordIsParsedAsItsGroundTruthSaysWithAndWithoutThePrefix(int schemaId) {
        Integer id = schemaId < 0 ? null : schemaId;
        ParserSettings settings = ParserSettings.defaults().withAvro(GeneratorSettings.avroSchemaText(),
                id == null ? AvroWirePrefix.NONE : AvroWirePrefix.CONFLUENT, id == null ? OptionalInt.empty() : OptionalInt.of(id));
        RecordParser parser = RecordParser.of(settings);
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(20_000).seed(11).malformedShare(0.05)
                .futureShare(0.02).format(ValueFormat.AVRO).avroSchemaId(id).build());
        int deadLetters = 0;
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            ParsedRecord parsed = parser.parse(new RawKafkaRecord("in", 0, record.seq, -1, record.key, record.value, null, null));
            if (record.recordClass == RecordClass.MALFORMED || record.recordClass == RecordClass.FUTURE) {
                assertThat(parsed.isImpression()).as("%s", record).isFalse();
                assertThat(parsed.deadLetter().reason().headerValue()).as("%s: %s", record, parsed.deadLetter().error())
                        .isEqualTo(record.expectedReason);
                assertThat(parsed.deadLetter().error()).isNotEmpty();
                deadLetters++;
            } else {
                assertThat(parsed.isImpression()).as("%s: %s", record, parsed).isTrue();
                assertThat(parsed.impression().requestId()).isEqualTo(record.requestId);
                assertThat(parsed.impression().eventTime()).isEqualTo(record.eventTime);
            }
        }
        assertThat(deadLetters).isGreaterThan(1000);
    }

    private static byte[] prefixed(int schemaId, byte[] record) {
        return ByteBuffer.allocate(5 + record.length).put((byte) 0).putInt(schemaId).put(record).array();
    }
}
