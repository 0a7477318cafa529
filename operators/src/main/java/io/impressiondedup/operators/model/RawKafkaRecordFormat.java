package io.impressiondedup.operators.model;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The wire format of a {@link RawKafkaRecord}, shared by the serializers of the records that embed
 * one. One instance per serializer instance, of that serializer's format version.
 *
 * <pre>
 *   string topic, int partition, long offset, long timestamp,
 *   bytes key, bytes value             (int length, -1 for null, then the bytes)
 *   int header count, then per header: string key, bytes value
 * </pre>
 *
 * <p>Versions differ only in how a string is written: v1 with Flink's {@code StringSerializer}, one
 * char at a time; v2 as UTF-8 in one piece ({@link StringWireFormat}). A v1 instance reads and writes
 * v1, so a serializer restored from a v1 snapshot keeps working on the bytes it finds.
 *
 * <p><b>The topic name is decoded once.</b> Nearly every record of a job carries the same topic, so a
 * v2 reader keeps the bytes and String of the last topic it decoded and returns that String when
 * the next topic's bytes are equal. The cache is one immutable object in a plain field: a reader
 * shared by mistake between threads at worst decodes again, it never returns a wrong name (final
 * fields are safely published). The serializers still give each thread its own instance
 * ({@code duplicate()}), so threads do not overwrite each other's cache.
 *
 * <p><b>Limits: the same on both sides.</b> At most {@link RawKafkaRecord#MAX_HEADERS} (65,536)
 * headers, and byte arrays of at most {@link RawKafkaRecord#MAX_BYTES}. {@link #write} refuses a
 * record beyond them, naming it, before writing a byte; {@link #read} takes a count or length beyond
 * them (or negative) for a corrupt stream. So read never refuses what write wrote, and a failure
 * points at the writer, not at a record that crossed the network.
 *
 * <p>No record the job handles reaches these limits: the source ({@code ImpressionDeserializationSchema})
 * admits at most {@code --max-headers} headers and {@code --max-record-bytes} of key, value and
 * headers, and turns any other record into a dead letter without its headers, before parsing;
 * {@code --max-headers} is at most {@link RawKafkaRecord#MAX_ADMITTED_HEADERS}, which leaves room for
 * the headers the job adds itself ({@code dedup.late}). Keys and values, which a dead letter keeps
 * whole, are within {@link RawKafkaRecord#MAX_BYTES}: Kafka cannot deliver a larger one (a record
 * batch, overhead included, is sized by an int).
 */
final class RawKafkaRecordFormat implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Strings by Flink's {@code StringSerializer}. */
    static final int V1 = 1;
    /** Strings as UTF-8 in one piece ({@link StringWireFormat}). */
    static final int V2 = 2;

    private final int version;
    /** The last topic decoded (v2 only); null until the first record, and after Java deserialization. */
    private transient LastTopic lastTopic;

    RawKafkaRecordFormat(int version) {
        if (version != V1 && version != V2) {
            throw new IllegalArgumentException("Raw record format versions are " + V1 + " and " + V2 + ", not " + version);
        }
        this.version = version;
    }

    int version() {
        return version;
    }

    void write(RawKafkaRecord record, DataOutputView out) throws IOException {
        int headers = record.headerCount();
        if (headers > RawKafkaRecord.MAX_HEADERS) {
            throw new IOException("Record " + record.position() + " has " + headers + " headers, more than the " + RawKafkaRecord.MAX_HEADERS
                    + " the record format carries: the source should have dead-lettered it (--max-headers)");
        }
        writeString(record.topic(), out);
        out.writeInt(record.partition());
        out.writeLong(record.offset());
        out.writeLong(record.timestamp());
        writeBytes(record.key(), out);
        writeBytes(record.value(), out);
        out.writeInt(headers);
        for (int i = 0; i < headers; i++) {
            writeString(record.headerKey(i), out);
            writeBytes(record.headerValue(i), out);
        }
    }

    RawKafkaRecord read(DataInputView in) throws IOException {
        String topic = version == V1 ? StringSerializer.INSTANCE.deserialize(in) : readTopic(in);
        int partition = in.readInt();
        long offset = in.readLong();
        long timestamp = in.readLong();
        byte[] key = readBytes(in);
        byte[] value = readBytes(in);
        int headers = in.readInt();
        if (headers < 0 || headers > RawKafkaRecord.MAX_HEADERS) {
            throw new IOException("Corrupt record: " + headers + " headers");
        }
        String[] headerKeys = new String[headers];
        byte[][] headerValues = new byte[headers][];
        for (int i = 0; i < headers; i++) {
            headerKeys[i] = readString(in);
            headerValues[i] = readBytes(in);
        }
        return new RawKafkaRecord(topic, partition, offset, timestamp, key, value, headerKeys, headerValues);
    }

    /** A string in this instance's version: the dead-letter serializer writes its error message with it. */
    void writeString(String s, DataOutputView out) throws IOException {
        if (version == V1) {
            StringSerializer.INSTANCE.serialize(s, out);
        } else {
            StringWireFormat.write(s, out);
        }
    }

    String readString(DataInputView in) throws IOException {
        return version == V1 ? StringSerializer.INSTANCE.deserialize(in) : StringWireFormat.read(in);
    }

    private String readTopic(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            String topic = StringWireFormat.readOtherForm(n, in);
            if (topic == null) {
                throw new IOException("Corrupt record: null topic");
            }
            return topic;
        }
        byte[] utf8 = StringWireFormat.readUtf8(n, in);
        LastTopic last = lastTopic;
        if (last != null && Arrays.equals(last.utf8, utf8)) {
            return last.name;
        }
        String name = new String(utf8, UTF_8);
        lastTopic = new LastTopic(utf8, name);
        return name;
    }

    /** A topic name with the bytes it was decoded from; never modified, so safe to share. */
    private static final class LastTopic {
        final byte[] utf8;
        final String name;

        LastTopic(byte[] utf8, String name) {
            this.utf8 = utf8;
            this.name = name;
        }
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
        } else {
            if (bytes.length > RawKafkaRecord.MAX_BYTES) {
                throw new IOException("Byte array of " + bytes.length + " bytes, more than the " + RawKafkaRecord.MAX_BYTES
                        + " the record format carries");
            }
            out.writeInt(bytes.length);
            out.write(bytes);
        }
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > RawKafkaRecord.MAX_BYTES) {
            throw new IOException("Corrupt record: byte array of length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
