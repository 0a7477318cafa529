package io.impressiondedup.operators.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * A Kafka record exactly as it was read: where it came from, its key, value and headers. The job
 * writes survivors and dead letters from these bytes, so what reaches the output is what came in.
 *
 * <p>Immutable by convention: the arrays are shared, never copied, and never modified.
 */
public final class RawKafkaRecord {

    /**
     * The most headers a record can carry through the job: {@link RawKafkaRecordFormat} refuses more,
     * on write as on read. The source never admits that many ({@link #MAX_ADMITTED_HEADERS}).
     */
    public static final int MAX_HEADERS = 65_536;
    /** Headers the job may add to a record it admitted (today one, {@code dedup.late}), kept free below {@link #MAX_HEADERS}. */
    public static final int HEADERS_RESERVED_FOR_THE_JOB = 16;
    /** The highest header count the source may admit ({@code --max-headers} cannot exceed it). */
    public static final int MAX_ADMITTED_HEADERS = MAX_HEADERS - HEADERS_RESERVED_FOR_THE_JOB;
    /**
     * The longest key, value or header value the wire format carries: about the largest byte array a
     * JVM allocates, and more than Kafka can deliver (a record batch, with at least 61 bytes of
     * overhead, is sized by an int), so every key and value the source passes on, whole in a dead
     * letter included.
     */
    public static final int MAX_BYTES = Integer.MAX_VALUE - 8;

    private static final String[] NO_HEADER_KEYS = new String[0];
    private static final byte[][] NO_HEADER_VALUES = new byte[0][];

    private final String topic;
    private final int partition;
    private final long offset;
    private final long timestamp;
    private final byte[] key;
    private final byte[] value;
    private final String[] headerKeys;
    private final byte[][] headerValues;

    public RawKafkaRecord(
            String topic,
            int partition,
            long offset,
            long timestamp,
            byte[] key,
            byte[] value,
            String[] headerKeys,
            byte[][] headerValues) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.key = key;
        this.value = value;
        this.headerKeys = headerKeys == null ? NO_HEADER_KEYS : headerKeys;
        this.headerValues = headerValues == null ? NO_HEADER_VALUES : headerValues;
        if (this.headerKeys.length != this.headerValues.length) {
            throw new IllegalArgumentException(
                    "header keys and values differ in number: " + this.headerKeys.length + " vs " + this.headerValues.length);
        }
    }

    /** This record with one more header (appended; an existing header of that name is kept too). */
    public RawKafkaRecord withHeader(String headerKey, byte[] headerValue) {
        String[] keys = java.util.Arrays.copyOf(headerKeys, headerKeys.length + 1);
        byte[][] values = java.util.Arrays.copyOf(headerValues, headerValues.length + 1);
        keys[headerKeys.length] = Objects.requireNonNull(headerKey, "headerKey");
        values[headerKeys.length] = headerValue;
        return new RawKafkaRecord(topic, partition, offset, timestamp, key, value, keys, values);
    }

    /** A record with only a value, for tests and tools. */
    public static RawKafkaRecord ofValue(String topic, int partition, long offset, byte[] value) {
        return new RawKafkaRecord(topic, partition, offset, -1L, null, value, null, null);
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public long offset() {
        return offset;
    }

    /** The Kafka record timestamp (not the impression's event time), or -1. */
    public long timestamp() {
        return timestamp;
    }

    /** The record key, or {@code null}. */
    public byte[] key() {
        return key;
    }

    /** The record value, or {@code null} for a tombstone. */
    public byte[] value() {
        return value;
    }

    public int headerCount() {
        return headerKeys.length;
    }

    public String headerKey(int index) {
        return headerKeys[index];
    }

    /** A header's value, or {@code null}. */
    public byte[] headerValue(int index) {
        return headerValues[index];
    }

    /** Bytes of key and value, for size limits. */
    public int payloadSize() {
        return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }

    /** "topic-partition@offset", the way operators name a record in logs and error messages. */
    public String position() {
        return topic + '-' + partition + '@' + offset;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RawKafkaRecord)) {
            return false;
        }
        RawKafkaRecord that = (RawKafkaRecord) o;
        return partition == that.partition
                && offset == that.offset
                && timestamp == that.timestamp
                && topic.equals(that.topic)
                && Arrays.equals(key, that.key)
                && Arrays.equals(value, that.value)
                && Arrays.equals(headerKeys, that.headerKeys)
                && Arrays.deepEquals(headerValues, that.headerValues);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset);
    }

    @Override
    public String toString() {
        return "RawKafkaRecord{" + position() + ", " + (value == null ? "null" : value.length + " bytes") + '}';
    }
}
