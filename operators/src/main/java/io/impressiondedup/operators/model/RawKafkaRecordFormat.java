package io.impressiondedup.operators.model;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The wire format of a {@link RawKafkaRecord}, shared by the serializers of the records that embed
 * one.
 *
 * <pre>
 *   string topic, int partition, long offset, long timestamp,
 *   bytes key, bytes value             (int length, -1 for null, then the bytes)
 *   int header count, then per header: string key, bytes value
 * </pre>
 */
final class RawKafkaRecordFormat {

    /** Refuse lengths beyond this: a corrupt stream, not a record (Kafka's own limit is far lower). */
    private static final int MAX_BYTES = 1 << 30;

    private RawKafkaRecordFormat() {}

    static void write(RawKafkaRecord record, DataOutputView out) throws IOException {
        StringSerializer.INSTANCE.serialize(record.topic(), out);
        out.writeInt(record.partition());
        out.writeLong(record.offset());
        out.writeLong(record.timestamp());
        writeBytes(record.key(), out);
        writeBytes(record.value(), out);
        out.writeInt(record.headerCount());
        for (int i = 0; i < record.headerCount(); i++) {
            StringSerializer.INSTANCE.serialize(record.headerKey(i), out);
            writeBytes(record.headerValue(i), out);
        }
    }

    static RawKafkaRecord read(DataInputView in) throws IOException {
        String topic = StringSerializer.INSTANCE.deserialize(in);
        int partition = in.readInt();
        long offset = in.readLong();
        long timestamp = in.readLong();
        byte[] key = readBytes(in);
        byte[] value = readBytes(in);
        int headers = in.readInt();
        if (headers < 0 || headers > 65536) {
            throw new IOException("Corrupt record: " + headers + " headers");
        }
        String[] headerKeys = new String[headers];
        byte[][] headerValues = new byte[headers][];
        for (int i = 0; i < headers; i++) {
            headerKeys[i] = StringSerializer.INSTANCE.deserialize(in);
            headerValues[i] = readBytes(in);
        }
        return new RawKafkaRecord(topic, partition, offset, timestamp, key, value, headerKeys, headerValues);
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(bytes.length);
            out.write(bytes);
        }
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > MAX_BYTES) {
            throw new IOException("Corrupt record: byte array of length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
