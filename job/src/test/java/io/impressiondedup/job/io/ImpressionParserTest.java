package io.impressiondedup.job.io;

import io.impressiondedup.job.config.ParserSettings;

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
        assertThat(custom.parse(raw("{\"rid\":\"r\",\"aid\":\"a\",\"time\":" + NOW + "}")).isImpression()).isTrue();
        assertThat(custom.parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":" + NOW + "}")).deadLetter().error()).contains("missing field 'rid'");
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

    static String withTs(String ts) {
        return "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":" + ts + "}";
    }

    @Test
    void anEventTimeExactlyAtTheMinimumIsAnImpressionAndOneMillisecondBeforeIsMalformed() {
        long min = ParserSettings.DEFAULT_MIN_EVENT_TIME.toEpochMilli();
        assertThat(parser.parse(raw(withTs(Long.toString(min)))).impression().eventTime()).isEqualTo(min);
        assertThat(parser.parse(raw(withTs("\"2000-01-01T00:00:00Z\""))).impression().eventTime()).isEqualTo(min);
        assertThat(parser.parse(raw(withTs("\"2000-01-01T01:00:00+01:00\""))).impression().eventTime()).isEqualTo(min);

        ParsedRecord millis = parser.parse(raw(withTs(Long.toString(min - 1))));
        assertThat(millis.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(millis.deadLetter().error())
                .isEqualTo("'ts' 946684799999 (1999-12-31T23:59:59.999Z) is before --min-event-time 2000-01-01T00:00:00Z");
        ParsedRecord iso = parser.parse(raw(withTs("\"1999-12-31T23:59:59.999Z\"")));
        assertThat(iso.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(iso.deadLetter().error()).isEqualTo("'ts' 1999-12-31T23:59:59.999Z is before --min-event-time 2000-01-01T00:00:00Z");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-5", "0", "-9223372036854775808", "\"1970-01-01T00:00:00Z\"", "\"0001-01-01T00:00:00Z\"",
        "\"-999999999-01-01T00:00:00-18:00\"", "\"-292275055-05-16T16:47:04.192Z\""})
    void eventTimesFarInThePastNameTheMinimumAndTheValue(String ts) {
        ParsedRecord parsed = parser.parse(raw(withTs(ts)));
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).contains(ts.replace("\"", "")).contains("is before --min-event-time 2000-01-01T00:00:00Z");
    }

    @Test
    void theMinimumIsConfigurable() {
        ParserSettings since2020 = new ParserSettings("requestId", "adId", "ts", 1000, Duration.ofHours(1), Instant.parse("2020-01-01T00:00:00Z"));
        ImpressionParser strict = new ImpressionParser(since2020, () -> NOW);
        assertThat(strict.parse(raw(withTs("\"2019-12-31T23:59:59Z\""))).deadLetter().error()).contains("--min-event-time 2020-01-01T00:00:00Z");
        assertThat(strict.parse(raw(withTs("\"2020-01-01T00:00:00Z\""))).isImpression()).isTrue();

        // A minimum before the range of epoch millis lets every long through, and still rejects instants beyond it.
        ImpressionParser lenient = new ImpressionParser(
                new ParserSettings("requestId", "adId", "ts", 1000, Duration.ofHours(1), Instant.MIN), () -> NOW);
        assertThat(lenient.parse(raw(withTs("-9223372036854775808"))).impression().eventTime()).isEqualTo(Long.MIN_VALUE);
        assertThat(lenient.parse(raw(withTs("-1"))).impression().eventTime()).isEqualTo(-1);
        assertThat(lenient.parse(raw(withTs("\"-999999999-01-01T00:00:00Z\""))).deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"+999999999-12-31T23:59:59.999999999-18:00\"", "\"+292278994-08-17T07:12:55.808Z\"",
        "\"+1000000000-01-01T00:00:00Z\"", "\"-1000000000-01-01T00:00:00Z\"", "9223372036854775808", "-9223372036854775809"})
    void extremeEventTimesAreMalformedWithoutOverflowing(String ts) {
        ParsedRecord parsed = parser.parse(raw(withTs(ts)));
        assertThat(parsed.deadLetter().reason()).as(parsed.deadLetter().error()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).startsWith("'ts' ");
    }

    @Test
    void theLatestEpochMillisecondIsDatedInTheFutureNotOverflowed() {
        // now + skew must saturate, not wrap: else Long.MAX_VALUE would pass as an impression.
        ImpressionParser hugeSkew = new ImpressionParser(new ParserSettings("requestId", "adId", "ts", 1000,
                Duration.ofMillis(Long.MAX_VALUE), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
        assertThat(hugeSkew.parse(raw(withTs(Long.toString(Long.MAX_VALUE)))).isImpression()).isTrue();
        ParsedRecord latest = parser.parse(raw(withTs("\"+292278994-08-17T07:12:55.807Z\"")));
        assertThat(latest.deadLetter().reason()).isEqualTo(DeadLetterReason.FUTURE_TIMESTAMP);
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
