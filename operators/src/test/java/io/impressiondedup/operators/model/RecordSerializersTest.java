package io.impressiondedup.operators.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class RecordSerializersTest {

    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        serializer.serialize(value, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        T read = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        return read;
    }

    private static RawKafkaRecord raw(byte[] key, byte[] value, String[] headerKeys, byte[][] headerValues) {
        return new RawKafkaRecord("impressions", 3, 12345L, 1700000000000L, key, value, headerKeys, headerValues);
    }

    @Test
    void anImpressionRoundTripsWithItsOriginalRecordByteForByte() throws IOException {
        Impression impression = new Impression("r-\u00e9", "ad", 1_700_000_000_123L, -1L, 42L,
                raw("k".getBytes(StandardCharsets.UTF_8), "{\"x\":1}".getBytes(StandardCharsets.UTF_8),
                        new String[] {"trace", "empty", "null"}, new byte[][] {{1, 2, 3}, {}, null}));

        Impression read = roundTrip(ImpressionSerializer.INSTANCE, impression);

        assertThat(read).isEqualTo(impression);
        assertThat(read.raw().headerValue(2)).isNull();
        assertThat(read.raw().headerValue(1)).isEmpty();
    }

    /** The keyed ad-id hash crosses the network from the source to dedup, alone or inside the parsed union; v2 had none. */
    @Test
    void theKeyedAdIdHashRoundTripsInTheCurrentFormatAndReadsAsZeroFromV2() throws IOException {
        Impression impression = new Impression("r", "a", 1, 2, 3, 0x0123456789ABCDEFL, raw(null, new byte[] {1}, null, null));

        assertThat(roundTrip(ImpressionSerializer.INSTANCE.duplicate(), impression).keyedAdIdHash()).isEqualTo(0x0123456789ABCDEFL);
        assertThat(roundTrip(ParsedRecordSerializer.INSTANCE.duplicate(), ParsedRecord.of(impression)).impression().keyedAdIdHash())
                .isEqualTo(0x0123456789ABCDEFL);
        Impression v2 = roundTrip(new ImpressionSerializer(2), impression);
        assertThat(v2.keyedAdIdHash()).isZero();
        assertThat(v2).isEqualTo(new Impression("r", "a", 1, 2, 3, impression.raw()));
    }

    @Test
    void aTombstoneWithoutKeyOrHeadersRoundTrips() throws IOException {
        DeadLetter deadLetter = new DeadLetter(raw(null, null, null, null), DeadLetterReason.MALFORMED, "empty value");
        assertThat(roundTrip(DeadLetterSerializer.INSTANCE, deadLetter)).isEqualTo(deadLetter);
    }

    @Test
    void theParsedUnionKeepsWhichSideItIs() throws IOException {
        ParsedRecord letter = ParsedRecord.of(new DeadLetter(raw(null, new byte[] {0, -1}, null, null), DeadLetterReason.OVERSIZED, "too big"));
        ParsedRecord impression = ParsedRecord.of(new Impression("r", "a", 1, 2, 3, raw(null, new byte[] {1}, null, null)));

        assertThat(roundTrip(ParsedRecordSerializer.INSTANCE, letter)).isEqualTo(letter);
        assertThat(roundTrip(ParsedRecordSerializer.INSTANCE, impression).isImpression()).isTrue();
    }

    @Test
    void everyReasonHasTheHeaderValueUsersFilterOn() {
        assertThat(DeadLetterReason.values()).extracting(DeadLetterReason::headerValue)
                .containsExactly("malformed", "oversized", "late", "future-timestamp", "schema-unknown");
        assertThat(DeadLetterReason.fromHeaderValue("future-timestamp")).isEqualTo(DeadLetterReason.FUTURE_TIMESTAMP);
        assertThatThrownBy(() -> DeadLetterReason.fromHeaderValue("nope")).hasMessageContaining("'nope'");
    }

    @Test
    void typeInformationAlwaysYieldsTheExplicitSerializer() {
        assertThat(Impression.TYPE_INFO.createSerializer(new SerializerConfigImpl())).isEqualTo(ImpressionSerializer.INSTANCE);
        assertThat(ParsedRecord.TYPE_INFO.createSerializer(new SerializerConfigImpl())).isInstanceOf(ParsedRecordSerializer.class);
    }
}
