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
 * <p><b>Decoding without garbage.</b> A v2 reader reads a string's bytes into a scratch buffer of its
 * own and decodes them from there (one copy into the String, none into a temporary array), and
 * keeps the bytes and String of the last topic it decoded: nearly every record of a job carries the
 * same topic, so its name is compared, not decoded, and the records share one String.
 *
 * <p><b>Not thread-safe</b> (the buffer and the last topic are state): per Flink's contract, each
 * thread uses its own instance; the serializers that hold one return a new instance from
 * {@code duplicate()}, and their shared {@code INSTANCE} is a template to duplicate.
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

    /** Strings up to this many UTF-8 bytes are decoded from the scratch buffer; longer ones get an array of their own. */
    private static final int SCRATCH_BYTES = 1024;

    private final int version;
    /** Where v2 strings are read before decoding (null until the first, and after Java deserialization). */
    private transient byte[] scratch;
    /** The UTF-8 bytes of {@link #lastTopic}; null before the first record. */
    private transient byte[] lastTopicUtf8;
    private transient String lastTopic;

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
        if (version == V1) {
            return StringSerializer.INSTANCE.deserialize(in);
        }
        int n = in.readInt();
        if (n < 0) {
            return StringWireFormat.readOtherForm(n, in);
        }
        if (n > SCRATCH_BYTES) {
            return new String(StringWireFormat.readUtf8(n, in), UTF_8);
        }
        byte[] utf8 = fillScratch(n, in);
        return new String(utf8, 0, n, UTF_8);
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
        if (n > SCRATCH_BYTES) {
            return new String(StringWireFormat.readUtf8(n, in), UTF_8);
        }
        byte[] utf8 = fillScratch(n, in);
        byte[] last = lastTopicUtf8;
        if (last != null && Arrays.equals(last, 0, last.length, utf8, 0, n)) {
            return lastTopic;
        }
        lastTopic = new String(utf8, 0, n, UTF_8);
        lastTopicUtf8 = Arrays.copyOf(utf8, n);
        return lastTopic;
    }

    /** Reads {@code n <= SCRATCH_BYTES} bytes into the scratch buffer and returns it. */
    private byte[] fillScratch(int n, DataInputView in) throws IOException {
        byte[] buffer = scratch;
        if (buffer == null) {
            buffer = scratch = new byte[SCRATCH_BYTES];
        }
        in.readFully(buffer, 0, n);
        return buffer;
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
