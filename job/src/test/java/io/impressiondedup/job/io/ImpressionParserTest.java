package io.impressiondedup.job.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.RecordClass;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImpressionParserTest {

    static final long NOW = Instant.parse("2026-11-22T12:00:00Z").toEpochMilli();
    final ImpressionParser parser = new ImpressionParser(ParserSettings.defaults(), () -> NOW);

    static RawKafkaRecord raw(String value) {
        return raw(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    static RawKafkaRecord raw(byte[] value) {
        return new RawKafkaRecord("in", 1, 42, NOW, "k".getBytes(StandardCharsets.UTF_8), value, new String[] {"h"}, new byte[][] {{7}});
    }

    @Test
    void anImpressionKeepsItsFieldsItsDigestAndItsBytes() {
        String json = "{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":1763812800000,\"extra\":{\"nested\":[1,2,3]},\"price\":1.5}";
        ParsedRecord parsed = parser.parse(raw(json));

        assertThat(parsed.isImpression()).isTrue();
        Impression impression = parsed.impression();
        assertThat(impression.requestId()).isEqualTo("r-1");
        assertThat(impression.adId()).isEqualTo("a-1");
        assertThat(impression.eventTime()).isEqualTo(1763812800000L);
        RequestIdDigester digester = new RequestIdDigester();
        digester.digest("r-1");
        assertThat(impression.digestHigh()).isEqualTo(digester.high());
        assertThat(impression.digestLow()).isEqualTo(digester.low());
        assertThat(new String(impression.raw().value(), StandardCharsets.UTF_8)).isEqualTo(json);
        assertThat(impression.raw().headerKey(0)).isEqualTo("h");
    }

    @Test
    void isoTimestampsAndIntegerAdIdsAreAccepted() {
        Impression impression = parser.parse(raw("{\"requestId\":\"r\",\"adId\":17,\"ts\":\"2026-11-22T10:00:00.250+01:00\"}")).impression();
        assertThat(impression.adId()).isEqualTo("17");
        assertThat(impression.eventTime()).isEqualTo(Instant.parse("2026-11-22T09:00:00.250Z").toEpochMilli());
    }

    @Test
    void fieldNamesAreConfigurable() {
        ImpressionParser custom = new ImpressionParser(new ParserSettings("rid", "aid", "time", 1000, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
        assertThat(custom.parse(raw("{\"rid\":\"r\",\"aid\":\"a\",\"time\":1}")).isImpression()).isTrue();
        assertThat(custom.parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1}")).deadLetter().error()).contains("missing field 'rid'");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":",
        "{\"adId\":\"a\",\"ts\":1}",
        "{\"requestId\":\"r\",\"ts\":1}",
        "{\"requestId\":\"r\",\"adId\":\"a\"}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":\"yesterday\"}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":-5}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":12.5}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1e30}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":99999999999999999999}",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":null}",
        "{\"requestId\":12345,\"adId\":\"a\",\"ts\":1}",
        "{\"requestId\":\"\",\"adId\":\"a\",\"ts\":1}",
        "[\"r\",\"a\",1]",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1}{}",
        "not json at all",
        ""
    })
    void malformedRecordsBecomeDeadLettersWithAReason(String value) {
        ParsedRecord parsed = parser.parse(raw(value));
        assertThat(parsed.isImpression()).isFalse();
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).isNotBlank().hasSizeLessThanOrEqualTo(203);
        assertThat(parsed.deadLetter().raw().value()).isEqualTo(value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void nullAndBinaryValuesAreMalformed() {
        assertThat(parser.parse(raw((byte[]) null)).deadLetter().error()).contains("tombstone");
        assertThat(parser.parse(raw(new byte[] {(byte) 0xC3, 0x28, 0, -1, 0x7B})).deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
    }

    @Test
    void oversizedRecordsAreDeadLetteredBeforeParsing() {
        ImpressionParser small = new ImpressionParser(new ParserSettings("requestId", "adId", "ts", 50, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
        ParsedRecord parsed = small.parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1,\"padding\":\"0123456789012345678901234567890\"}"));
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.OVERSIZED);
        assertThat(parsed.deadLetter().error()).contains("--max-record-bytes 50");
    }

    @Test
    void eventTimeBeyondTheFutureSkewIsDeadLettered() {
        long justInside = NOW + Duration.ofHours(1).toMillis();
        assertThat(parser.parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":" + justInside + "}")).isImpression()).isTrue();
        ParsedRecord future = parser.parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":\"9999-12-31T23:59:59Z\"}"));
        assertThat(future.deadLetter().reason()).isEqualTo(DeadLetterReason.FUTURE_TIMESTAMP);
        assertThat(future.deadLetter().error()).contains("9999-12-31T23:59:59Z").contains("--max-future-skew");
    }

    @Test
    void everyGeneratedRecordIsParsedAsItsGroundTruthSays() {
        // The generator and the parser must agree on what is malformed, oversized and future.
        ImpressionParser realClock = new ImpressionParser(ParserSettings.defaults());
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(50_000).seed(5).malformedShare(0.05).futureShare(0.02).build());
        int checked = 0;
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            ParsedRecord parsed = realClock.parse(new RawKafkaRecord("in", 0, record.seq, -1, record.key, record.value, null, null));
            if (record.recordClass == RecordClass.MALFORMED || record.recordClass == RecordClass.FUTURE) {
                assertThat(parsed.isImpression()).as("%s", record).isFalse();
                assertThat(parsed.deadLetter().reason().headerValue()).as("%s: %s", record, parsed.deadLetter().error()).isEqualTo(record.expectedReason);
                checked++;
            } else {
                assertThat(parsed.isImpression()).as("%s: %s", record, parsed).isTrue();
                assertThat(parsed.impression().eventTime()).isEqualTo(record.eventTime);
            }
        }
        assertThat(checked).isGreaterThan(3000);
    }
}
