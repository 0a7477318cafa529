package io.impressiondedup.operators.model;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * How format v2 of the record serializers writes a string: its UTF-8 bytes in one bulk write, read
 * back and decoded in one call (by {@link RawKafkaRecordFormat#readString}, which owns the buffer).
 * Flink's {@code StringSerializer} (format v1) writes and reads one char at a time; in the profile
 * that was a third of the shuffle's cost (docs/design/PROFILE.md).
 *
 * <pre>
 *   int n, then
 *     n &gt;= 0   n bytes: the string in UTF-8 (the string is valid UTF-16)
 *     n == -1  nothing: null
 *     n &lt;= -2  -(n + 2) chars, 2 bytes each (big endian): a string that is not valid UTF-16
 * </pre>
 *
 * <p><b>Why the third form.</b> UTF-8 cannot carry an unpaired surrogate: Java's encoder (and
 * Kafka's, for header keys) replaces it by '?', so such a string would come back changed. Request
 * and ad ids never have one (the parser dead-letters them) and topic names are ASCII by Kafka's
 * rules, but a header key or a dead letter's error message is any Java string, so it is written char
 * by char instead. Every string round-trips exactly; the rare slow form costs only those strings.
 *
 * <p><b>Limits, the same on both sides:</b> at most {@link RawKafkaRecord#MAX_BYTES} bytes of UTF-8,
 * or half as many chars in the third form; a reader takes any other length for a corrupt stream.
 * No string in a record comes near: Kafka delivers less.
 */
final class StringWireFormat {

    static final int NULL = -1;
    /** The marker of the third form is {@code CHARS_BASE - charCount}. */
    static final int CHARS_BASE = -2;
    static final int MAX_CHARS = RawKafkaRecord.MAX_BYTES / 2;

    private StringWireFormat() {}

    static void write(String s, DataOutputView out) throws IOException {
        if (s == null) {
            out.writeInt(NULL);
            return;
        }
        byte[] utf8 = s.getBytes(UTF_8);
        if (mayHaveLostASurrogate(utf8) && hasUnpairedSurrogate(s)) {
            if (s.length() > MAX_CHARS) {
                throw new IOException("String of " + s.length() + " chars, more than the " + MAX_CHARS + " the record format carries");
            }
            out.writeInt(CHARS_BASE - s.length());
            out.writeChars(s);
            return;
        }
        if (utf8.length > RawKafkaRecord.MAX_BYTES) {
            throw new IOException("String of " + utf8.length + " UTF-8 bytes, more than the " + RawKafkaRecord.MAX_BYTES
                    + " the record format carries");
        }
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    /** The {@code n} bytes of UTF-8 that follow a non-negative length, checked against the limit. */
    static byte[] readUtf8(int n, DataInputView in) throws IOException {
        if (n > RawKafkaRecord.MAX_BYTES) {
            throw new IOException("Corrupt record: string of " + n + " UTF-8 bytes");
        }
        byte[] utf8 = new byte[n];
        in.readFully(utf8);
        return utf8;
    }

    /** The string of a negative length: null, or one written char by char. */
    static String readOtherForm(int n, DataInputView in) throws IOException {
        if (n == NULL) {
            return null;
        }
        int chars = CHARS_BASE - n;
        if (chars < 0 || chars > MAX_CHARS) {
            throw new IOException("Corrupt record: string length marker " + n);
        }
        char[] value = new char[chars];
        for (int i = 0; i < chars; i++) {
            value[i] = in.readChar();
        }
        return new String(value);
    }

    /**
     * Whether the encoder may have replaced an unpaired surrogate: it writes '?' for one, so bytes
     * without '?' (a UUID, an ad id, a topic name) need no scan of the string.
     */
    private static boolean mayHaveLostASurrogate(byte[] utf8) {
        for (byte b : utf8) {
            if (b == '?') {
                return true;
            }
        }
        return false;
    }

    static boolean hasUnpairedSurrogate(String s) {
        for (int i = 0, length = s.length(); i < length; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
