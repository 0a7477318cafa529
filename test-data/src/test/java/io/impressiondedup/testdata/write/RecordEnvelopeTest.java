package io.impressiondedup.testdata.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordEnvelopeTest {

    private static String line(long seq, byte[] key, Map<String, String> headers, byte[] value, boolean json) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RecordEnvelope.write(out, seq, key, headers, value, json);
        return out.toString(StandardCharsets.UTF_8).stripTrailing();
    }

    @Test
    void aJsonValueIsEmbeddedAndReadBackExactly() throws IOException {
        byte[] value = "{\"requestId\":\"r\",\"ts\":1,\"nested\":{\"a\":[1,2]}}".getBytes(StandardCharsets.UTF_8);
        String line = line(7, "r".getBytes(StandardCharsets.UTF_8), Map.of("dedup.reason", "late"), value, true);

        assertThat(line).isEqualTo("{\"seq\":7,\"key\":\"r\",\"headers\":{\"dedup.reason\":\"late\"},\"value\":" + new String(value, StandardCharsets.UTF_8) + "}");
        RecordEnvelope read = RecordEnvelope.parse(line);
        assertThat(read.seq).isEqualTo(7);
        assertThat(read.value).isEqualTo(value);
        assertThat(read.headers).containsEntry("dedup.reason", "late");
    }

    @Test
    void binaryValuesAndNullKeysSurviveAsBase64() throws IOException {
        byte[] garbage = {0, -1, 10, 13, 34, 92};
        RecordEnvelope read = RecordEnvelope.parse(line(1, null, null, garbage, false));
        assertThat(read.key).isNull();
        assertThat(read.value).isEqualTo(garbage);
    }

    @Test
    void aNullValueStaysNull() throws IOException {
        assertThat(RecordEnvelope.parse(line(2, new byte[0], null, null, false)).value).isNull();
    }

    @Test
    void keysWithQuotesAreEscaped() throws IOException {
        RecordEnvelope read = RecordEnvelope.parse(line(3, "a\"b\\c".getBytes(StandardCharsets.UTF_8), null, new byte[0], false));
        assertThat(new String(read.key, StandardCharsets.UTF_8)).isEqualTo("a\"b\\c");
    }

    @Test
    void supplementaryCharactersInKeysAndHeadersSurviveTheRoundTrip() throws IOException {
        // An emoji (U+1F600) and a CJK ideograph of plane 2 (U+2000B): each a surrogate pair in Java, 4 bytes in UTF-8.
        String text = "k\uD83D\uDE00-\uD840\uDC0B\u00e9\"";
        byte[] key = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RecordEnvelope.write(out, 4, key, Map.of("h\uD83D\uDE00", text), null, false);
        byte[] line = out.toByteArray();

        // The line is UTF-8 with each pair as one 4-byte sequence (no '?' in place of its halves).
        assertThat(new String(line, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8)).isEqualTo(line);
        assertThat(new String(line, StandardCharsets.UTF_8)).doesNotContain("?").contains("\uD83D\uDE00").contains("\uD840\uDC0B");
        RecordEnvelope read = RecordEnvelope.parse(new String(line, StandardCharsets.UTF_8).stripTrailing());
        assertThat(read.key).isEqualTo(key);
        assertThat(read.headers).containsExactly(Map.entry("h\uD83D\uDE00", text));
    }

    @Test
    void anUnpairedSurrogateInAHeaderIsEscapedAndReadBackAsIs() throws IOException {
        // Not UTF-8-encodable: written as a JSON escape, so the header reads back unchanged instead of as '?'.
        String value = "a\uD800b\uDC00\uDE00\uD83D";
        String line = line(5, null, Map.of("h", value), null, false);
        assertThat(line).contains("a\\ud800b\\udc00\\ude00\\ud83d");
        assertThat(RecordEnvelope.parse(line).headers).containsEntry("h", value);
    }
}
