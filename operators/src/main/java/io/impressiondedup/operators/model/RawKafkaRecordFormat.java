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
final class RawKafkaRecordFormat {

    private RawKafkaRecordFormat() {}

    static void write(RawKafkaRecord record, DataOutputView out) throws IOException {
        int headers = record.headerCount();
        if (headers > RawKafkaRecord.MAX_HEADERS) {
            throw new IOException("Record " + record.position() + " has " + headers + " headers, more than the " + RawKafkaRecord.MAX_HEADERS
                    + " the record format carries: the source should have dead-lettered it (--max-headers)");
        }
        StringSerializer.INSTANCE.serialize(record.topic(), out);
        out.writeInt(record.partition());
        out.writeLong(record.offset());
        out.writeLong(record.timestamp());
        writeBytes(record.key(), out);
        writeBytes(record.value(), out);
        out.writeInt(headers);
        for (int i = 0; i < headers; i++) {
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
        if (headers < 0 || headers > RawKafkaRecord.MAX_HEADERS) {
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
