package io.impressiondedup.local;

import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.write.RecordDestination;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * A producer that evolves its Avro schema twice mid-stream, as teams do without telling their consumers: the generator's
 * records (Avro with the 5-byte prefix of a placeholder id) are written with schema 1 ({@link #V1}, the generator's
 * own) for the first third of {@code total}, schema 2 ({@link #V2}: two fields added with defaults, one of them
 * optional) for the second, and schema 3 ({@link #V3}: the optional field removed again) for the rest, each record
 * carrying its schema's registry id in the wire format asked for ({@link IdPlacement}).
 *
 * <p>Each record is decoded with schema 1 and encoded again with its phase's schema, every field kept by name, the added
 * ones drawn. A record that is no complete record of schema 1 (the generator's truncated, trailing-byte and bad-branch
 * records) keeps its bytes and gets schema 1's id: it stays as malformed as written. A value without a sound prefix
 * (empty, null, a wrong magic byte) is written as it is.
 */
final class EvolvingAvroSchemas implements RecordDestination {

    /** Where a value's schema id goes. */
    enum IdPlacement {
        /** The Confluent prefix: a 0 byte and a 4-byte id. */
        CONFLUENT_PREFIX,
        /** Apicurio's prefix: a 0 byte and an 8-byte global id. */
        APICURIO_PREFIX,
        /** No prefix; Apicurio's header {@code apicurio.value.globalId}, an 8-byte id. */
        GLOBAL_ID_HEADER
    }

    static final String V1 = GeneratorSettings.avroSchemaText();
    static final String V2 = withFields(V1, List.of(
            "{\"name\": \"viewability\", \"type\": [\"null\", \"double\"], \"default\": null}",
            "{\"name\": \"channel\", \"type\": \"string\", \"default\": \"web\"}"));
    static final String V3 = withFields(V1, List.of("{\"name\": \"channel\", \"type\": \"string\", \"default\": \"web\"}"));

    /** The generator's prefix: magic byte and a 4-byte id. */
    private static final int GENERATOR_PREFIX = 5;

    private final KafkaTopicDestination destination;
    private final long total;
    private final long[] ids;
    private final IdPlacement placement;
    private final Schema[] schemas = {new Schema.Parser().parse(V1), new Schema.Parser().parse(V2), new Schema.Parser().parse(V3)};
    private final GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schemas[0]);
    private final SplittableRandom random = new SplittableRandom(38);
    private final long[] written = new long[3];
    private long seen;
    private BinaryDecoder decoder;
    private BinaryEncoder encoder;

    /**
     * @param ids the registry ids of schemas 1, 2 and 3
     */
    EvolvingAvroSchemas(KafkaTopicDestination destination, long total, long[] ids, IdPlacement placement) {
        this.destination = destination;
        this.total = total;
        this.ids = ids.clone();
        this.placement = placement;
    }

    @Override
    public void write(GeneratedRecord record) throws IOException {
        int phase = (int) Math.min(2, seen++ * 3 / total);
        byte[] value = rewrite(record.value, phase);
        if (placement == IdPlacement.GLOBAL_ID_HEADER && value != record.value) {
            // The id travels in the header: the value is the record alone.
            long id = ByteBuffer.wrap(value, 1, 8).getLong();
            destination.write(withValue(record, java.util.Arrays.copyOfRange(value, 9, value.length)), "apicurio.value.globalId",
                    ByteBuffer.allocate(8).putLong(id).array());
        } else {
            destination.write(withValue(record, value));
        }
    }

    /** Records written with each schema, complete records of it: [schema 1, 2, 3]. */
    long[] writtenBySchema() {
        return written.clone();
    }

    private byte[] rewrite(byte[] value, int phase) throws IOException {
        if (value == null || value.length < GENERATOR_PREFIX || value[0] != 0) {
            return value;
        }
        GenericRecord v1;
        decoder = DecoderFactory.get().binaryDecoder(value, GENERATOR_PREFIX, value.length - GENERATOR_PREFIX, decoder);
        try {
            v1 = reader.read(null, decoder);
            if (!decoder.isEnd()) {
                v1 = null;
            }
        } catch (IOException | RuntimeException notARecord) {
            v1 = null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 16);
        writePrefix(out, ids[v1 == null ? 0 : phase]);
        if (v1 == null) {
            out.write(value, GENERATOR_PREFIX, value.length - GENERATOR_PREFIX);
            return out.toByteArray();
        }
        Schema schema = schemas[phase];
        GenericRecord evolved = new GenericData.Record(schema);
        for (Schema.Field field : schema.getFields()) {
            switch (field.name()) {
                case "viewability" -> evolved.put("viewability", random.nextInt(3) == 0 ? null : random.nextDouble());
                case "channel" -> evolved.put("channel", random.nextBoolean() ? "web" : "app");
                default -> evolved.put(field.name(), v1.get(field.name()));
            }
        }
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        new GenericDatumWriter<GenericRecord>(schema).write(evolved, encoder);
        encoder.flush();
        written[phase]++;
        return out.toByteArray();
    }

    private void writePrefix(ByteArrayOutputStream out, long id) {
        out.write(0);
        ByteBuffer buffer = placement == IdPlacement.CONFLUENT_PREFIX ? ByteBuffer.allocate(4).putInt((int) id)
                : ByteBuffer.allocate(8).putLong(id);
        out.write(buffer.array(), 0, buffer.capacity());
    }

    private static GeneratedRecord withValue(GeneratedRecord r, byte[] value) {
        return new GeneratedRecord(r.seq, r.recordClass, r.expectedReason, r.group, r.requestId, r.adId, r.eventTime, r.key, value,
                r.valueIsJsonObject);
    }

    /** {@code schema} with {@code fields} appended to its top-level record. */
    private static String withFields(String schema, List<String> fields) {
        int end = schema.lastIndexOf(']');
        return schema.substring(0, end).stripTrailing() + ",\n    " + String.join(",\n    ", fields) + "\n  " + schema.substring(end);
    }

    @Override
    public void flush() throws IOException {
        destination.flush();
    }

    @Override
    public String describe() {
        return destination.describe() + " (schemas evolving at thirds, ids " + java.util.Arrays.toString(ids) + ")";
    }

    @Override
    public void close() throws IOException {
        destination.close();
    }
}
