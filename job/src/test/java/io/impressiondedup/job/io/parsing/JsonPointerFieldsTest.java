package io.impressiondedup.job.io.parsing;

import static io.impressiondedup.job.io.parsing.JsonImpressionParserTest.assertMalformed;
import static io.impressiondedup.job.io.parsing.JsonImpressionParserTest.raw;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import io.impressiondedup.job.io.eventtime.EventTimeRules;

/** Fields addressed by JSON Pointer into objects, and keys of one, two and three fields. */
class JsonPointerFieldsTest {

    static final long NOW = JsonImpressionParserTest.NOW;
    static final long TS = 1763812800000L;

    static JsonImpressionParser parser(String timestamp, String... key) {
        List<FieldPath> fields = new ArrayList<>();
        for (String k : key) {
            fields.add(FieldPath.parse(k));
        }
        return new JsonImpressionParser(new ParserSettings(fields, FieldPath.parse(timestamp), 10_000, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
    }

    static JsonImpressionParser nested() {
        return new JsonImpressionParser(new ParserSettings("/imp/requestId", "/imp/ad/id", "/ts", 10_000, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW);
    }

    @Test
    void pointersReadFieldsInsideObjectsAndTheIdentityIsThatOfTheSameFieldsAtTheTop() {
        ParsedRecord nestedRecord = nested().parse(raw("{\"site\":{\"id\":\"s\"},\"imp\":{\"x\":[1,{\"requestId\":\"no\"}],"
                + "\"requestId\":\"r-1\",\"ad\":{\"id\":\"a-1\"}},\"ts\":" + TS + "}"));
        Impression impression = nestedRecord.impression();
        Impression flat = new JsonImpressionParser(ParserSettings.defaults(), () -> NOW)
                .parse(raw("{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":" + TS + "}")).impression();
        assertThat(impression.requestId()).isEqualTo("r-1");
        assertThat(impression.adId()).isEqualTo("a-1");
        assertThat(impression.eventTime()).isEqualTo(TS);
        assertThat(new long[] {impression.digestHigh(), impression.digestLow()}).containsExactly(flat.digestHigh(), flat.digestLow());
    }

    @Test
    void escapedTokensNameMembersWithSlashAndTilde() {
        JsonImpressionParser escaped = parser("ts", "/a~1b/r~0id", "/a~1b/~01");
        Impression impression = escaped.parse(raw("{\"a/b\":{\"r~id\":\"r\",\"~1\":7},\"ts\":" + TS + "}")).impression();
        assertThat(impression.requestId()).isEqualTo("r");
        assertThat(impression.adId()).isEqualTo("7");
        // A top-level name without a leading '/' is taken literally, slash included.
        assertThat(parser("ts", "a/b", "c").parse(raw("{\"a/b\":\"r\",\"c\":\"x\",\"ts\":" + TS + "}")).impression().requestId())
                .isEqualTo("r");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // A missing intermediate object, a missing member: the configured path, in key order, then the time.
        "{\"ts\":1763812800000}                                             | missing field '/imp/requestId'",
        "{\"imp\":{\"requestId\":\"r\"},\"ts\":1763812800000}               | missing field '/imp/ad/id'",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{}},\"ts\":1763812800000}     | missing field '/imp/ad/id'",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1}}}                  | missing field '/ts'",
        // An intermediate that is no object.
        "{\"imp\":[{\"requestId\":\"r\"}],\"ts\":1763812800000}             | '/imp' must be an object (on the path of '/imp/requestId'), but is an array",
        "{\"imp\":\"r\",\"ts\":1763812800000}                               | '/imp' must be an object (on the path of '/imp/requestId'), but is a string",
        "{\"imp\":null,\"ts\":1763812800000}                                | '/imp' must be an object (on the path of '/imp/requestId'), but is null",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":5},\"ts\":1763812800000}      | '/imp/ad' must be an object (on the path of '/imp/ad/id'), but is an integer",
        // A name twice in an object on a path, whether or not it is a configured field; the path names it.
        "{\"imp\":{\"requestId\":\"r\",\"requestId\":\"s\",\"ad\":{\"id\":1}},\"ts\":1763812800000} | duplicate field '/imp/requestId'",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1,\"n\":1,\"n\":2}},\"ts\":1763812800000}     | duplicate field '/imp/ad/n'",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1}},\"imp\":{},\"ts\":1763812800000}          | duplicate field 'imp'",
        // Values of the wrong type name the path.
        "{\"imp\":{\"requestId\":7,\"ad\":{\"id\":1}},\"ts\":1763812800000}      | '/imp/requestId' must be a non-empty string, but is an integer",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1.5}},\"ts\":1763812800000} | '/imp/ad/id' must be a non-empty string or an integer, but is a decimal number",
        "{\"imp\":{\"requestId\":\"r\\ud800\",\"ad\":{\"id\":1}},\"ts\":1763812800000} | '/imp/requestId' has an unpaired UTF-16 surrogate \\ud800 at index 1",
        "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1}},\"ts\":\"yesterday\"}  | '/ts' must be epoch milliseconds or an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z), but is a string yesterday",
    })
    void aBadNestedRecordIsMalformedNamingThePath(String json, String error) {
        assertMalformed(nested().parse(raw(json)), error);
    }

    @Test
    void objectsOffThePathsPassThroughUnchecked() {
        String json = "{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":1},\"ext\":{\"k\":1,\"k\":2}},\"ts\":" + TS + ",\"ext\":{\"k\":1,\"k\":2}}";
        assertThat(nested().parse(raw(json)).isImpression()).isTrue();
    }

    @Test
    void theAdIdMayBeAStringOrAnIntegerWithItsTextAsWritten() {
        JsonImpressionParser nested = nested();
        assertThat(nested.parse(raw("{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":-0}},\"ts\":" + TS + "}")).impression().adId()).isEqualTo("-0");
        assertThat(nested.parse(raw("{\"imp\":{\"requestId\":\"r\",\"ad\":{\"id\":\"17\"}},\"ts\":" + TS + "}")).impression().adId())
                .isEqualTo("17");
    }

    @Test
    void aConfiguredKeyTakesAnIntegerFirstFieldByItsTextTheDefaultKeyDoesNot() {
        Impression integer = parser("ts", "rid", "aid").parse(raw("{\"rid\":123,\"aid\":\"a\",\"ts\":" + TS + "}")).impression();
        Impression string = parser("ts", "rid", "aid").parse(raw("{\"rid\":\"123\",\"aid\":\"a\",\"ts\":" + TS + "}")).impression();
        assertThat(integer.requestId()).isEqualTo("123");
        assertThat(integer.digestHigh()).isEqualTo(string.digestHigh());
        assertMalformed(new JsonImpressionParser(ParserSettings.defaults(), () -> NOW).parse(raw("{\"requestId\":123,\"adId\":\"a\",\"ts\":" + TS + "}")),
                "'requestId' must be a non-empty string, but is an integer");
    }

    @Test
    void aOneFieldKeyMakesEveryRecordOfThatValueOneIdentity() {
        Impression impression = parser("/e/ts", "/e/id").parse(raw("{\"e\":{\"id\":\"x\",\"ts\":" + TS + "},\"adId\":\"a\"}")).impression();
        assertThat(impression.requestId()).isEqualTo("x");
        assertThat(impression.adId()).isEmpty();
        RequestIdDigester digester = new RequestIdDigester(null);
        digester.digest("x");
        assertThat(impression.digestHigh()).isEqualTo(digester.high());
    }

    @Test
    void aTwoFieldKeyIsTheDefaultIdentityBitForBit() {
        Impression configured = parser("ts", "requestId", "adId").parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":" + TS + "}")).impression();
        Impression byDefault = new JsonImpressionParser(ParserSettings.defaults(), () -> NOW)
                .parse(raw("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":" + TS + "}")).impression();
        assertThat(configured).isEqualTo(byDefault);
    }

    @Test
    void threeFieldTuplesThatConcatenateAlikeStayDistinct() {
        JsonImpressionParser three = parser("ts", "/imp/r", "/imp/a", "/imp/s");
        String ab_c = three.parse(raw("{\"imp\":{\"r\":\"r\",\"a\":\"ab\",\"s\":\"c\"},\"ts\":" + TS + "}")).impression().adId();
        String a_bc = three.parse(raw("{\"imp\":{\"r\":\"r\",\"a\":\"a\",\"s\":\"bc\"},\"ts\":" + TS + "}")).impression().adId();
        String colon = three.parse(raw("{\"imp\":{\"r\":\"r\",\"a\":\"1:a\",\"s\":\"\\u0031\"},\"ts\":" + TS + "}")).impression().adId();
        assertThat(ab_c).isEqualTo("2:ab1:c");
        assertThat(a_bc).isEqualTo("1:a2:bc");
        assertThat(colon).isEqualTo("3:1:a1:1");
        assertThat(List.of(ab_c, a_bc, colon)).doesNotHaveDuplicates();
        assertMalformed(three.parse(raw("{\"imp\":{\"r\":\"r\",\"a\":\"a\"},\"ts\":" + TS + "}")), "missing field '/imp/s'");
    }

    @Test
    void theMissingFieldReportedIsTheFirstInKeyOrderThenTheTimestamp() {
        JsonImpressionParser three = parser("t", "c", "b", "a");
        assertMalformed(three.parse(raw("{\"a\":\"1\",\"t\":" + TS + "}")), "missing field 'c'");
        assertMalformed(three.parse(raw("{\"a\":\"1\",\"c\":\"3\",\"t\":" + TS + "}")), "missing field 'b'");
        assertMalformed(three.parse(raw("{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}")), "missing field 't'");
    }

    @Test
    void theEventTimeRulesAnswerAnyFormatWithNullOrTheError() {
        EventTimeRules rules = new EventTimeRules(new ParserSettings("r", "a", "t", 100, Duration.ofHours(1), Instant.parse("2020-01-01T00:00:00Z")));
        assertThat(rules.epochMillisError(TS)).isNull();
        assertThat(rules.lastValid()).isEqualTo(TS);
        assertThat(rules.isoInstantError("2026-11-22T10:00:00.250+01:00")).isNull();
        assertThat(rules.lastValid()).isEqualTo(Instant.parse("2026-11-22T09:00:00.250Z").toEpochMilli());
        assertThat(rules.epochMillisError(0)).isEqualTo("0 (1970-01-01T00:00:00Z) is before --min-event-time 2020-01-01T00:00:00Z");
        assertThat(rules.isoInstantError("2026-11-22T10:00:00")).startsWith("must be epoch milliseconds or an ISO-8601 instant with an offset");
        assertThat(rules.isoInstantError("+999999999-12-31T23:59:59Z")).isEqualTo("+999999999-12-31T23:59:59Z is beyond the range of epoch milliseconds");
    }
}
