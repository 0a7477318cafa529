package io.impressiondedup.testdata.generate;

import java.nio.charset.StandardCharsets;
import io.impressiondedup.testdata.Digits;

/**
 * An impression's value around its timestamp value: JSON (ASCII), or Avro ({@link AvroImpressionEncoding}). Only
 * the bytes are kept: copies waiting in the generator's queue hold their payload for up to the retention, and are
 * most of the live heap.
 */
final class Payload {
    /** The value up to the timestamp value. */
    final byte[] before;
    /** The value after the timestamp value. */
    final byte[] after;
    private final boolean avro;

    Payload(byte[] before, byte[] after, boolean avro) {
        this.before = before;
        this.after = after;
        this.avro = avro;
    }

    /** The value with {@code eventTime} as epoch millis. */
    byte[] bytes(long eventTime) {
        return avro ? AvroImpressionEncoding.concat(before, AvroImpressionEncoding.eventTime(eventTime), after) : jsonBytes(eventTime);
    }

    /** The value with {@code timestamp} as a string. */
    byte[] bytes(String timestamp) {
        return avro ? AvroImpressionEncoding.concat(before, AvroImpressionEncoding.eventTime(timestamp), after) : jsonBytes(timestamp);
    }

    /** The JSON up to the timestamp value, for the rare malformed variants built from strings. */
    String before() {
        return new String(before, StandardCharsets.US_ASCII);
    }

    String after() {
        return new String(after, StandardCharsets.US_ASCII);
    }

    String json(long eventTime) {
        return before() + eventTime + after();
    }

    /** The JSON with {@code eventTime} as epoch millis, built in one array. */
    private byte[] jsonBytes(long eventTime) {
        byte[] json = new byte[before.length + Digits.length(eventTime) + after.length];
        System.arraycopy(before, 0, json, 0, before.length);
        int pos = Digits.write(eventTime, json, before.length);
        System.arraycopy(after, 0, json, pos, after.length);
        return json;
    }

    /** The JSON with {@code timestamp} as a JSON string. */
    private byte[] jsonBytes(String timestamp) {
        byte[] json = new byte[before.length + timestamp.length() + 2 + after.length];
        System.arraycopy(before, 0, json, 0, before.length);
        int pos = before.length;
        json[pos++] = '"';
        for (int i = 0; i < timestamp.length(); i++) {
            json[pos++] = (byte) timestamp.charAt(i);
        }
        json[pos++] = '"';
        System.arraycopy(after, 0, json, pos, after.length);
        return json;
    }
}
