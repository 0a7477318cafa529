package io.impressiondedup.operators.model;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Bytes of format v1 (in-flight records of an unaligned checkpoint, written by the previous release)
 * still read, by the serializer Flink restores from a v1 snapshot, and that serializer writes v1.
 * The v1 bytes are built here field by field, as the previous release wrote them, not by the code
 * under test.
 */
class WireFormatV1CompatibilityTest {

    private static final String TOPIC = "impressions";
    private static final String REQUEST_ID = "3f1c2a9e-0b7d-4c55-9a2e-6d1f0e8b7c21";
    private static final String AD_ID = "ad-\u00e9";
    private static final byte[] VALUE = "{\"requestId\":\"x\"}".getBytes(UTF_8);

    private static Impression impression() {
        return new Impression(REQUEST_ID, AD_ID, 1_700_000_000_123L, -7L, 42L,
                new RawKafkaRecord(TOPIC, 3, 12345L, 1_700_000_000_000L, null, VALUE, new String[] {"trace\ud800"}, new byte[][] {{9}}));
    }

    /** The raw record as v1 wrote it: Flink strings, int-length byte arrays. */
    private static void writeV1Raw(DataOutputSerializer out) throws IOException {
        StringSerializer.INSTANCE.serialize(TOPIC, out);
        out.writeInt(3);
        out.writeLong(12345L);
        out.writeLong(1_700_000_000_000L);
        out.writeInt(-1);
        out.writeInt(VALUE.length);
        out.write(VALUE);
        out.writeInt(1);
        StringSerializer.INSTANCE.serialize("trace\ud800", out);
        out.writeInt(1);
        out.writeByte(9);
    }

    private static byte[] v1Impression() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        StringSerializer.INSTANCE.serialize(REQUEST_ID, out);
        StringSerializer.INSTANCE.serialize(AD_ID, out);
        out.writeLong(1_700_000_000_123L);
        out.writeLong(-7L);
        out.writeLong(42L);
        writeV1Raw(out);
        return out.getCopyOfBuffer();
    }

    private static byte[] v1DeadLetter() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(DeadLetterReason.LATE.ordinal());
        StringSerializer.INSTANCE.serialize("too late", out);
        writeV1Raw(out);
        return out.getCopyOfBuffer();
    }

    /** The serializer Flink restores from a snapshot that was written as format version 1. */
    private static <T> TypeSerializer<T> restoredFromV1(TypeSerializerSnapshot<T> fresh) throws IOException {
        fresh.readSnapshot(1, new DataInputDeserializer(new byte[0]), WireFormatV1CompatibilityTest.class.getClassLoader());
        assertThat(((VersionedSerializerSnapshot<T>) fresh).readVersion()).isEqualTo(1);
        return fresh.restoreSerializer();
    }

    private static <T> T readAll(TypeSerializer<T> serializer, byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        T read = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        return read;
    }

    private static <T> byte[] write(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    @Test
    void anImpressionInFormatV1ReadsAndIsWrittenBackAsV1() throws IOException {
        TypeSerializer<Impression> v1 = restoredFromV1(new ImpressionSerializer.Snapshot());

        assertThat(readAll(v1, v1Impression())).isEqualTo(impression());
        assertThat(write(v1, impression())).isEqualTo(v1Impression());
        assertThat(write(v1.duplicate(), impression())).isEqualTo(v1Impression());
        assertThat(write(ImpressionSerializer.INSTANCE, impression())).isNotEqualTo(v1Impression());
    }

    @Test
    void deadLettersAndParsedRecordsInFormatV1ReadAsV1() throws IOException {
        DeadLetter letter = new DeadLetter(impression().raw(), DeadLetterReason.LATE, "too late");
        byte[] parsedImpression = concat(new byte[] {0}, v1Impression());
        byte[] parsedLetter = concat(new byte[] {1}, v1DeadLetter());

        assertThat(readAll(restoredFromV1(new DeadLetterSerializer.Snapshot()), v1DeadLetter())).isEqualTo(letter);
        TypeSerializer<ParsedRecord> parsed = restoredFromV1(new ParsedRecordSerializer.Snapshot());
        assertThat(readAll(parsed, parsedImpression).impression()).isEqualTo(impression());
        assertThat(readAll(parsed.duplicate(), parsedLetter).deadLetter()).isEqualTo(letter);
        assertThat(write(parsed, ParsedRecord.of(letter))).isEqualTo(parsedLetter);
    }

    @Test
    void aV1SnapshotIsCompatibleAfterMigrationToTheCurrentFormat() throws IOException {
        ImpressionSerializer.Snapshot old = new ImpressionSerializer.Snapshot();
        restoredFromV1(old);

        assertThat(ImpressionSerializer.INSTANCE.formatVersion()).isEqualTo(ImpressionSerializer.CURRENT_VERSION);
        assertThat(ImpressionSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAfterMigration())
                .isTrue();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
