package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.ParserSettings;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.RecordClass;
import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonImpressionParserTest {

    static final long NOW = Instant.parse("2026-11-22T12:00:00Z").toEpochMilli();
    final JsonImpressionParser parser = new JsonImpressionParser(ParserSettings.defaults(), () -> NOW);

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
        JsonImpressionParser custom = new JsonImpressionParser(new ParserSettings("rid", "aid", "time", 1000, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
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
        JsonImpressionParser small = new JsonImpressionParser(new ParserSettings("requestId", "adId", "ts", 50, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
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
        JsonImpressionParser strict = new JsonImpressionParser(since2020, () -> NOW);
        assertThat(strict.parse(raw(withTs("\"2019-12-31T23:59:59Z\""))).deadLetter().error()).contains("--min-event-time 2020-01-01T00:00:00Z");
        assertThat(strict.parse(raw(withTs("\"2020-01-01T00:00:00Z\""))).isImpression()).isTrue();

        // A minimum before the range of epoch millis lets every long through, and still rejects instants beyond it.
        JsonImpressionParser lenient = new JsonImpressionParser(
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
        JsonImpressionParser hugeSkew = new JsonImpressionParser(new ParserSettings("requestId", "adId", "ts", 1000,
                Duration.ofMillis(Long.MAX_VALUE), ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
        assertThat(hugeSkew.parse(raw(withTs(Long.toString(Long.MAX_VALUE)))).isImpression()).isTrue();
        ParsedRecord latest = parser.parse(raw(withTs("\"+292278994-08-17T07:12:55.807Z\"")));
        assertThat(latest.deadLetter().reason()).isEqualTo(DeadLetterReason.FUTURE_TIMESTAMP);
    }

    @Test
    void everyGeneratedRecordIsParsedAsItsGroundTruthSays() {
        // The generator and the parser must agree on what is malformed, oversized and future.
        JsonImpressionParser realClock = new JsonImpressionParser(ParserSettings.defaults());
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

    // Ambiguous identities: one record must never be read with two identities, and two records with distinct
    // request ids must never share one.

    static final String GOOD_FIELDS = "\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000";

    static void assertMalformed(ParsedRecord parsed, String error) {
        assertThat(parsed.isImpression()).as("%s", parsed).isFalse();
        assertThat(parsed.deadLetter().reason()).as(parsed.deadLetter().error()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).isEqualTo(error);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // The identity fields, repeated with another value: first-wins and last-wins readers would disagree.
        "{\"requestId\":\"a\",\"requestId\":\"b\",\"adId\":\"x\",\"ts\":1763812800000} | requestId",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"adId\":\"b\"}       | adId",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"ts\":1763812800001}  | ts",
        // The same value twice is still ambiguous JSON (RFC 8259 4: names SHOULD be unique).
        "{\"requestId\":\"r\",\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000}   | requestId",
        // An escaped name is the same name.
        "{\"requestId\":\"a\",\"adId\":\"x\",\"ts\":1763812800000,\"request\\u0049d\":\"b\"} | requestId",
        // Any other top-level field: consumers of the output would read the record differently too.
        "{\"requestId\":\"r\",\"price\":1.5,\"adId\":\"a\",\"ts\":1763812800000,\"price\":0.01} | price",
        "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"extra\":{},\"extra\":[1]} | extra",
    })
    void aRepeatedTopLevelFieldIsMalformedNamingTheField(String json, String field) {
        assertMalformed(parser.parse(raw(json)), "duplicate field '" + field + "'");
    }

    @Test
    void aRepeatedFieldIsFoundWhateverTheConfiguredNamesAndHowManyFieldsThereAre() {
        JsonImpressionParser custom = new JsonImpressionParser(new ParserSettings("rid", "aid", "time", 100_000, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
        assertMalformed(custom.parse(raw("{\"rid\":\"r\",\"aid\":\"a\",\"time\":" + NOW + ",\"rid\":\"s\"}")), "duplicate field 'rid'");

        // Many fields (beyond any small inline table), the duplicate far from the original: found, and nothing else is.
        StringBuilder many = new StringBuilder("{\"rid\":\"r\",\"aid\":\"a\",\"time\":" + NOW);
        for (int i = 0; i < 2000; i++) {
            many.append(",\"f").append(i).append("\":").append(i);
        }
        assertThat(custom.parse(raw(many + "}")).isImpression()).isTrue();
        assertMalformed(custom.parse(raw(many + ",\"f3\":0}")), "duplicate field 'f3'");
        assertMalformed(custom.parse(raw(many + ",\"aid\":\"b\"}")), "duplicate field 'aid'");
        // The table of names seen is per record: the same names in the next record are no duplicates.
        assertThat(custom.parse(raw(many + "}")).isImpression()).isTrue();
    }

    @Test
    void theSameNameAtAnotherLevelIsNoDuplicate() {
        // Only the top-level object carries the identity; nested objects pass through unread and unchecked.
        Impression impression = parser.parse(raw("{" + GOOD_FIELDS + ",\"extra\":{\"requestId\":\"x\",\"k\":1,\"k\":2},"
                + "\"list\":[{\"adId\":1},{\"adId\":2}]}")).impression();
        assertThat(impression.requestId()).isEqualTo("r");
        assertThat(impression.adId()).isEqualTo("a");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // A lone high surrogate, a lone low one, a pair in the wrong order, a high one at the end.
        "{\"requestId\":\"r\\ud800x\",\"adId\":\"a\",\"ts\":1763812800000} | 'requestId' has an unpaired UTF-16 surrogate \\ud800 at index 1",
        "{\"requestId\":\"r\\udfff\",\"adId\":\"a\",\"ts\":1763812800000}  | 'requestId' has an unpaired UTF-16 surrogate \\udfff at index 1",
        "{\"requestId\":\"\\ude00\\ud83d\",\"adId\":\"a\",\"ts\":1763812800000} | 'requestId' has an unpaired UTF-16 surrogate \\ude00 at index 0",
        "{\"requestId\":\"r\",\"adId\":\"a\\ud83d\\ude00\\ud83d\",\"ts\":1763812800000} | 'adId' has an unpaired UTF-16 surrogate \\ud83d at index 3",
    })
    void anUnpairedSurrogateInAnIdentityIsMalformed(String json, String error) {
        assertMalformed(parser.parse(raw(json)), error);
    }

    @Test
    void distinctRequestIdsWithUnpairedSurrogatesDoNotCollide() {
        // Encoded to UTF-8 (for the digest, and by any consumer), each of these would become "r?", the id of a third record.
        for (String escaped : new String[] {"r\\ud800", "r\\udbff", "r\\udc00"}) {
            ParsedRecord parsed = parser.parse(raw("{\"requestId\":\"" + escaped + "\",\"adId\":\"a\",\"ts\":1763812800000}"));
            assertThat(parsed.isImpression()).as(escaped).isFalse();
            assertThat(parsed.deadLetter().error()).contains("'requestId'").contains("unpaired UTF-16 surrogate");
        }
        assertThat(parser.parse(raw("{\"requestId\":\"r?\",\"adId\":\"a\",\"ts\":1763812800000}")).impression().requestId()).isEqualTo("r?");
    }

    @Test
    void aSupplementaryCharacterIsOneIdentityWhetherEscapedOrNot() {
        Impression escaped = parser.parse(raw("{\"requestId\":\"r\\ud83d\\ude00\\uD840\\uDC0B\",\"adId\":\"\\ud83d\\ude00\",\"ts\":1763812800000}")).impression();
        Impression literal = parser.parse(raw("{\"requestId\":\"r\uD83D\uDE00\uD840\uDC0B\",\"adId\":\"\uD83D\uDE00\",\"ts\":1763812800000}")).impression();
        assertThat(escaped.requestId()).isEqualTo(literal.requestId()).isEqualTo("r\uD83D\uDE00\uD840\uDC0B");
        assertThat(escaped.adId()).isEqualTo(literal.adId()).isEqualTo("\uD83D\uDE00");
        assertThat(escaped.digestHigh()).isEqualTo(literal.digestHigh());
        assertThat(escaped.digestLow()).isEqualTo(literal.digestLow());
    }

    static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof String) {
                out.writeBytes(((String) part).getBytes(StandardCharsets.UTF_8));
            } else {
                for (int b : (int[]) part) {
                    out.write(b);
                }
            }
        }
        return out.toByteArray();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // Bytes Jackson decodes without complaint, each into a string another record can have too.
        "ED A0 80    | encoded UTF-16 surrogate (CESU-8)",   // U+D800 as if it were a character: "r?" once digested
        "C0 AF       | overlong encoding",                   // '/' in two bytes: "r/"
        "E0 80 AF    | overlong encoding",                   // '/' in three bytes
        "F0 80 80 AF | overlong encoding",                   // '/' in four bytes
        "F4 90 80 80 | code point beyond U+10FFFF",
        "F8 88 80 80 | invalid lead byte",
        // And the ones Jackson rejects itself, with the same message.
        "FF          | invalid lead byte",
        "80          | continuation byte without a lead byte",
        "C3 28       | truncated sequence",
    })
    void invalidUtf8InTheRequestIdIsMalformedNamingTheFieldAndTheBytes(String hex, String what) {
        String[] parts = hex.trim().split(" +");
        int[] invalid = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            invalid[i] = Integer.parseInt(parts[i], 16);
        }
        byte[] value = bytes("{\"adId\":\"a\",\"requestId\":\"r", invalid, "\",\"ts\":1763812800000}");
        ParsedRecord parsed = parser.parse(raw(value));
        assertThat(parsed.isImpression()).as(hex).isFalse();
        assertThat(parsed.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(parsed.deadLetter().error()).as(hex)
                .startsWith("'requestId' is not valid UTF-8: " + what + " at byte 26 of the value (0x" + parts[0]);
        assertThat(parsed.deadLetter().raw().value()).isEqualTo(value);
    }

    @Test
    void invalidUtf8InTheAdIdIsMalformedAndValidUtf8OfEveryLengthPasses() {
        assertMalformed(parser.parse(raw(bytes("{\"requestId\":\"r\",\"adId\":\"a", new int[] {0xC0, 0xAF}, "\",\"ts\":1763812800000}"))),
                "'adId' is not valid UTF-8: overlong encoding at byte 26 of the value (0xC0 0xAF)");
        Impression valid = parser.parse(raw("{\"requestId\":\"\u00e9\u20ac\uD83D\uDE00\uDBFF\uDFFF\",\"adId\":\"\u0100\uE000\",\"ts\":1763812800000,"
                + "\"ua\":\"\uFFFD\uD7FF\"}")).impression();
        assertThat(valid.requestId()).isEqualTo("\u00e9\u20ac\uD83D\uDE00\uDBFF\uDFFF");
        assertThat(valid.adId()).isEqualTo("\u0100\uE000");
    }

    @Test
    void invalidUtf8ThatJacksonRejectsIsMalformedWhereverItIsNamingTheField() {
        assertMalformed(parser.parse(raw(bytes("{" + GOOD_FIELDS + ",\"ua\":\"x", new int[] {0xFF}, "\"}"))),
                "'ua' is not valid UTF-8: invalid lead byte at byte 54 of the value (0xFF)");
        assertMalformed(parser.parse(raw(bytes("{" + GOOD_FIELDS + ",\"extra\":{\"k\":[\"", new int[] {0x80}, "\"]}}"))),
                "'extra' is not valid UTF-8: continuation byte without a lead byte at byte 62 of the value (0x80)");
        assertMalformed(parser.parse(raw(bytes(new int[] {0xC3, 0x28}, "{}"))),
                "value is not valid UTF-8: truncated sequence at byte 0 of the value (0xC3 0x28)");
        // The kinds Jackson decodes are checked in the two ids only (checking every byte of every record would cost
        // about 5% of the parser's throughput): elsewhere the record passes through untouched, as it always has.
        assertThat(parser.parse(raw(bytes("{" + GOOD_FIELDS + ",\"ua\":\"x", new int[] {0xC0, 0xAF}, "\"}"))).isImpression()).isTrue();
    }

    @Test
    void aNameWithBytesThatPadAnotherNameIsMalformedWhateverWasReadBefore() {
        // Jackson's table of names pads a name's last group of four bytes with 0xFF and compares groups only: once a
        // record had "requestId", the bytes "requestI\xFF\xFF\xFFd" are found as that name, never decoded, and the
        // record would read as an impression; read first, it is malformed. It must be malformed either way.
        byte[] padded = bytes("{\"requestI", new int[] {0xFF, 0xFF, 0xFF}, "d\":\"r\",\"adId\":\"a\",\"ts\":1763812800000}");
        String error = "value is not valid UTF-8: invalid lead byte at byte 10 of the value (0xFF)";
        assertMalformed(new JsonImpressionParser(ParserSettings.defaults(), () -> NOW).parse(raw(padded)), error);
        assertThat(parser.parse(raw("{" + GOOD_FIELDS + "}")).isImpression()).isTrue();
        assertMalformed(parser.parse(raw(padded)), error);
    }

    @Test
    void aValueJacksonWouldReadAsUtf16OrUtf32IsMalformed() {
        // Jackson detects these encodings and decodes them replacing an unpaired surrogate by U+FFFD: "r\ud800" and
        // "r\ud801" would be one identity. JSON between systems is UTF-8 (RFC 8259, 8.1).
        String json = "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000}";
        assertMalformed(parser.parse(raw(json.getBytes(StandardCharsets.UTF_16LE))),
                "value is not UTF-8: it begins like UTF-16 or UTF-32 (0x7B 0x00 0x22 0x00)");
        assertMalformed(parser.parse(raw(json.getBytes(StandardCharsets.UTF_16))), // big-endian, with its byte-order mark
                "value is not UTF-8: it begins like UTF-16 or UTF-32 (0xFE 0xFF 0x00 0x7B)");
        assertMalformed(parser.parse(raw(json.getBytes(Charset.forName("UTF-32BE")))),
                "value is not UTF-8: it begins like UTF-16 or UTF-32 (0x00 0x00 0x00 0x7B)");
        // UTF-8 with a byte-order mark is still UTF-8, and byte offsets count the mark.
        assertThat(parser.parse(raw(bytes(new int[] {0xEF, 0xBB, 0xBF}, json))).impression().requestId()).isEqualTo("r");
        assertMalformed(parser.parse(raw(bytes(new int[] {0xEF, 0xBB, 0xBF}, "{\"adId\":\"a\",\"requestId\":\"r", new int[] {0xC0, 0xAF},
                "\",\"ts\":1763812800000}"))), "'requestId' is not valid UTF-8: overlong encoding at byte 29 of the value (0xC0 0xAF)");
    }

    @Test
    void recordsOfVaryingLayoutsAreCheckedEachOnItsOwn() {
        // The names are compared with the last record's first: a record that departs from them, shorter, longer, or
        // in another order, is still checked in full, and a duplicate found wherever it is.
        String[] layouts = {
            "{" + GOOD_FIELDS + ",\"a\":1,\"b\":2,\"c\":3}",
            "{" + GOOD_FIELDS + ",\"a\":1}",
            "{" + GOOD_FIELDS + ",\"a\":1,\"b\":2,\"c\":3,\"d\":4}",
            "{\"c\":3," + GOOD_FIELDS + ",\"b\":2,\"a\":1}",
            "{" + GOOD_FIELDS + "}",
        };
        for (int round = 0; round < 3; round++) {
            for (String layout : layouts) {
                assertThat(parser.parse(raw(layout)).isImpression()).as(layout).isTrue();
            }
            assertMalformed(parser.parse(raw("{" + GOOD_FIELDS + ",\"a\":1,\"b\":2,\"a\":3}")), "duplicate field 'a'");
            assertMalformed(parser.parse(raw("{" + GOOD_FIELDS + ",\"a\":1,\"b\":2,\"c\":3,\"c\":3}")), "duplicate field 'c'");
            assertMalformed(parser.parse(raw("{\"c\":3," + GOOD_FIELDS + ",\"b\":2,\"c\":1}")), "duplicate field 'c'");
            assertMalformed(parser.parse(raw("{" + GOOD_FIELDS + ",\"a\":1,\"b\":2,\"c\":3,\"requestId\":\"s\"}")), "duplicate field 'requestId'");
            assertMalformed(parser.parse(raw("{" + GOOD_FIELDS + ",\"a\":1,\"ts\":1}")), "duplicate field 'ts'");
        }
    }
}
