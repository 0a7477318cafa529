package io.impressiondedup.testdata.write;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import io.impressiondedup.testdata.Digits;

/**
 * One Kafka record as a line of a JSONL file: the file form of generated data and of topic dumps the
 * verifier can read instead of topics.
 *
 * <pre>
 *   {"seq":17,"key":"6f1c...","headers":{"dedup.reason":"late"},"value":{"requestId":"6f1c...",...}}
 *   {"seq":18,"key":null,"valueBase64":"3q2+7w=="}
 * </pre>
 *
 * A value that is a JSON object is embedded as is, so a reader sees the impression; any other value
 * (invalid JSON, binary, empty) is base64. A null value is {@code "value":null}. The value always
 * comes last, so its exact bytes can be cut out of the line.
 */
public final class RecordEnvelope {

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] SEQ = "{\"seq\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEY = ",\"key\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = ",\"value\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE_BASE64 = ",\"valueBase64\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    private static final String VALUE_FIELD = ",\"value\":";

    public final long seq;
    public final byte[] key;
    public final Map<String, String> headers;
    public final byte[] value;

    public RecordEnvelope(long seq, byte[] key, Map<String, String> headers, byte[] value) {
        this.seq = seq;
        this.key = key;
        this.headers = headers;
        this.value = value;
    }

    /** Writes one line; {@code valueIsJsonObject} says the value may be embedded as is. */
    public static void write(OutputStream out, long seq, byte[] key, Map<String, String> headers, byte[] value, boolean valueIsJsonObject)
            throws IOException {
        out.write(SEQ);
        byte[] digits = new byte[20];
        out.write(digits, 0, Digits.write(seq, digits, 0));
        out.write(KEY);
        if (key == null) {
            out.write(NULL);
        } else if (isPlainAscii(key)) {
            out.write('"');
            out.write(key);
            out.write('"');
        } else {
            out.write('"');
            writeEscaped(out, new String(key, StandardCharsets.UTF_8));
            out.write('"');
        }
        if (headers != null && !headers.isEmpty()) {
            out.write(",\"headers\":{".getBytes(StandardCharsets.US_ASCII));
            boolean first = true;
            for (Map.Entry<String, String> header : headers.entrySet()) {
                if (!first) {
                    out.write(',');
                }
                first = false;
                out.write('"');
                writeEscaped(out, header.getKey());
                out.write("\":\"".getBytes(StandardCharsets.US_ASCII));
                writeEscaped(out, header.getValue());
                out.write('"');
            }
            out.write('}');
        }
        if (value == null) {
            out.write(VALUE);
            out.write(NULL);
        } else if (valueIsJsonObject) {
            out.write(VALUE);
            out.write(value);
        } else {
            out.write(VALUE_BASE64);
            out.write(Base64.getEncoder().encode(value));
            out.write('"');
        }
        out.write('}');
        out.write('\n');
    }

    /** Parses one line written by {@link #write}. */
    public static RecordEnvelope parse(String line) throws IOException {
        long seq = -1;
        byte[] key = null;
        Map<String, String> headers = new LinkedHashMap<>();
        byte[] value = null;
        int valueStart = line.lastIndexOf(VALUE_FIELD);
        try (JsonParser parser = JSON.createParser(line)) {
            expect(parser.nextToken(), JsonToken.START_OBJECT, line);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken token = parser.nextToken();
                switch (field) {
                    case "seq":
                        seq = parser.getLongValue();
                        break;
                    case "key":
                        key = token == JsonToken.VALUE_NULL ? null : parser.getText().getBytes(StandardCharsets.UTF_8);
                        break;
                    case "headers":
                        while (parser.nextToken() == JsonToken.FIELD_NAME) {
                            String name = parser.currentName();
                            parser.nextToken();
                            headers.put(name, parser.getText());
                        }
                        break;
                    case "value":
                        if (token == JsonToken.VALUE_NULL) {
                            value = null;
                        } else {
                            parser.skipChildren();
                            String raw = line.substring(valueStart + VALUE_FIELD.length(), line.length() - 1);
                            value = raw.getBytes(StandardCharsets.UTF_8);
                        }
                        break;
                    case "valueBase64":
                        value = Base64.getDecoder().decode(parser.getText());
                        break;
                    default:
                        parser.skipChildren();
                }
            }
        }
        if (seq < 0) {
            throw new IOException("Envelope without seq: " + abbreviate(line));
        }
        return new RecordEnvelope(seq, key, headers, value);
    }

    private static void expect(JsonToken actual, JsonToken expected, String line) throws IOException {
        if (actual != expected) {
            throw new IOException("Not an envelope (expected " + expected + "): " + abbreviate(line));
        }
    }

    private static String abbreviate(String line) {
        return line.length() <= 120 ? line : line.substring(0, 120) + "...";
    }

    /** Printable ASCII without quote or backslash: written as is. */
    private static boolean isPlainAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0x20 || b == '"' || b == '\\') {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes {@code s} as the inside of a JSON string, in UTF-8. A surrogate pair is one character,
     * written as its 4-byte sequence (encoding each half alone would write '?' twice); an unpaired
     * surrogate, which UTF-8 cannot encode, is written as a JSON escape, so the string reads back as is.
     */
    private static void writeEscaped(OutputStream out, String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.write('\\');
                out.write(c);
            } else if (c < 0x20) {
                out.write(String.format("\\u%04x", (int) c).getBytes(StandardCharsets.US_ASCII));
            } else if (c < 0x80) {
                out.write(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.write(s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8));
                i++;
            } else if (Character.isSurrogate(c)) {
                out.write(String.format("\\u%04x", (int) c).getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
    }
}
