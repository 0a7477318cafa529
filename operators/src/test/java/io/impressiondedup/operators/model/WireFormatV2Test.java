package io.impressiondedup.operators.model;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Format v2 of the record serializers: strings as UTF-8 in one piece, every string exact. */
class WireFormatV2Test {

    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes(serializer, value));
        T read = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        return read;
    }

    private static <T> byte[] bytes(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private static Impression impression(String topic, String requestId, String adId, String[] headerKeys, byte[][] headerValues) {
        return new Impression(requestId, adId, 1_700_000_000_123L, -7L, 42L,
                new RawKafkaRecord(topic, 3, 12345L, 1_700_000_000_000L, null, "{\"x\":1}".getBytes(UTF_8), headerKeys, headerValues));
    }

    @Test
    void asciiNonAsciiSurrogatePairsAndEmptyStringsRoundTripExactly() throws IOException {
        Impression impression = impression("impressions.eu-1", "3f1c2a9e-0b7d-4c55-9a2e-6d1f0e8b7c21", "ad-\u00e9\u65e5\u672c",
                new String[] {"trace", "", "emoji-\ud83d\ude00", "\u00fc?"}, new byte[][] {{1}, {}, null, {2, 3}});

        Impression read = roundTrip(ImpressionSerializer.INSTANCE.duplicate(), impression);

        assertThat(read).isEqualTo(impression);
        assertThat(read.raw().headerKey(2)).isEqualTo("emoji-\ud83d\ude00");
        assertThat(read.raw().headerValue(2)).isNull();
        assertThat(roundTrip(ImpressionSerializer.INSTANCE.duplicate(), impression("t", "", "", null, null)))
                .isEqualTo(impression("t", "", "", null, null));
    }

    @Test
    void stringsLongerThanTheScratchBufferRoundTrip() throws IOException {
        String longTopic = "t".repeat(1_500);
        String longKey = "\u00e9\ud83d\ude00".repeat(700); // 4,200 bytes of UTF-8
        Impression impression = impression(longTopic, "r".repeat(1_025), "a", new String[] {longKey, "short"}, new byte[2][]);
        ImpressionSerializer serializer = ImpressionSerializer.INSTANCE.duplicate();

        assertThat(roundTrip(serializer, impression)).isEqualTo(impression);
        assertThat(roundTrip(serializer, impression("in", "r", "a", null, null)).raw().topic()).isEqualTo("in");
    }

    @Test
    void aRecordWithManyHeadersAndNullKeyAndValueRoundTrips() throws IOException {
        RawKafkaRecord many = RawKafkaRecordFormatTest.withHeaders(1_000);
        RawKafkaRecord tombstone = new RawKafkaRecord("in", 0, 1L, -1L, null, null, null, null);
        DeadLetter letter = new DeadLetter(tombstone, DeadLetterReason.MALFORMED, "empty value");

        assertThat(roundTrip(ImpressionSerializer.INSTANCE.duplicate(), new Impression("r", "a", 1, 2, 3, many)).raw()).isEqualTo(many);
        assertThat(roundTrip(DeadLetterSerializer.INSTANCE.duplicate(), letter)).isEqualTo(letter);
        assertThat(roundTrip(ParsedRecordSerializer.INSTANCE.duplicate(), ParsedRecord.of(letter)).deadLetter()).isEqualTo(letter);
    }

    @Test
    void stringsThatAreNotValidUtf16RoundTripUnchanged() throws IOException {
        // UTF-8 would turn each unpaired surrogate into '?': these must come back as they were.
        String[] keys = {"lone-high-\ud800x", "lone-low-\udc00", "trailing-\ud83d", "swapped-\ude00\ud83d", "pair-then-lone-\ud83d\ude00\udc00"};
        Impression impression = impression("in", "r", "a", keys, new byte[keys.length][]);
        DeadLetter letter = new DeadLetter(impression.raw(), DeadLetterReason.MALFORMED, "bad request id '\ud800'");

        assertThat(roundTrip(ImpressionSerializer.INSTANCE.duplicate(), impression).raw().headerKey(0)).isEqualTo("lone-high-\ud800x");
        assertThat(roundTrip(ImpressionSerializer.INSTANCE.duplicate(), impression)).isEqualTo(impression);
        assertThat(roundTrip(DeadLetterSerializer.INSTANCE.duplicate(), letter)).isEqualTo(letter);
    }

    @Test
    void aValidStringIsWrittenAsItsUtf8BytesInOnePiece() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        StringWireFormat.write("a\u00e9", out);
        StringWireFormat.write(null, out);
        StringWireFormat.write("\ud800", out);

        assertThat(out.getCopyOfBuffer()).containsExactly(
                0, 0, 0, 3, 'a', 0xc3 - 256, 0xa9 - 256, // length 3, UTF-8
                -1, -1, -1, -1, // null
                -1, -1, -1, -3, 0xd8 - 256, 0); // -2 - 1 char, then the char
    }

    @Test
    void readRefusesCorruptStringLengths() {
        for (int marker : new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE, StringWireFormat.CHARS_BASE - StringWireFormat.MAX_CHARS - 1}) {
            DataOutputSerializer out = new DataOutputSerializer(16);
            assertThatThrownBy(() -> {
                out.writeInt(marker);
                new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).readString(new DataInputDeserializer(out.getCopyOfBuffer()));
            }).as("marker %s", marker).isInstanceOf(IOException.class).hasMessageContaining("Corrupt record");
        }
    }

    @Test
    void readRefusesANullTopicAndATruncatedRecord() throws IOException {
        byte[] good = bytes(ImpressionSerializer.INSTANCE, impression("topic", "r", "a", null, null));
        byte[] nullTopic = good.clone();
        // request id "r" (4 + 1), ad id "a" (4 + 1), four longs (32, the keyed ad-id hash the fourth): then the topic's length
        int topicAt = 5 + 5 + 32;
        assertThat(new String(nullTopic, topicAt + 4, 5, UTF_8)).isEqualTo("topic");
        nullTopic[topicAt] = nullTopic[topicAt + 1] = nullTopic[topicAt + 2] = nullTopic[topicAt + 3] = -1;

        assertThatThrownBy(() -> ImpressionSerializer.INSTANCE.duplicate().deserialize(new DataInputDeserializer(nullTopic)))
                .isInstanceOf(IOException.class).hasMessageContaining("null topic");
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        assertThatThrownBy(() -> ImpressionSerializer.INSTANCE.duplicate().deserialize(new DataInputDeserializer(truncated)))
                .isInstanceOf(EOFException.class);
    }

    @Test
    void theTopicNameIsDecodedOncePerRunOfEqualNames() throws IOException {
        ImpressionSerializer serializer = ImpressionSerializer.INSTANCE.duplicate();
        Impression first = serializer.deserialize(new DataInputDeserializer(bytes(serializer, impression(new String("in"), "r1", "a", null, null))));
        Impression second = serializer.deserialize(new DataInputDeserializer(bytes(serializer, impression(new String("in"), "r2", "a", null, null))));
        Impression other = serializer.deserialize(new DataInputDeserializer(bytes(serializer, impression("io", "r3", "a", null, null))));

        assertThat(second.raw().topic()).isSameAs(first.raw().topic());
        assertThat(other.raw().topic()).isEqualTo("io");
    }

    @Test
    void duplicatesUsedFromTwoThreadsReadEveryRecordRight() throws Exception {
        ParsedRecordSerializer template = ParsedRecordSerializer.INSTANCE;
        assertThat(template.duplicate()).isNotSameAs(template).isEqualTo(template);
        List<ParsedRecord> records = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            Impression impression = impression(i % 3 == 0 ? "topic-a" : "topic-b", "request-" + i, "ad-" + (i % 7),
                    new String[] {"k" + i}, new byte[][] {{(byte) i}});
            records.add(i % 5 == 0 ? ParsedRecord.of(new DeadLetter(impression.raw(), DeadLetterReason.LATE, "late " + i))
                    : ParsedRecord.of(impression));
        }
        DataOutputSerializer out = new DataOutputSerializer(1 << 16);
        for (ParsedRecord record : records) {
            template.serialize(record, out);
        }
        byte[] stream = out.getCopyOfBuffer();
        Callable<List<ParsedRecord>> reader = () -> {
            ParsedRecordSerializer own = template.duplicate();
            List<ParsedRecord> read = new ArrayList<>();
            for (int pass = 0; pass < 10; pass++) {
                DataInputDeserializer in = new DataInputDeserializer(stream);
                read.clear();
                while (in.available() > 0) {
                    read.add(own.deserialize(in));
                }
            }
            return read;
        };
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<List<ParsedRecord>> one = threads.submit(reader);
            Future<List<ParsedRecord>> two = threads.submit(reader);
            assertThat(one.get(30, TimeUnit.SECONDS)).isEqualTo(records);
            assertThat(two.get(30, TimeUnit.SECONDS)).isEqualTo(records);
        } finally {
            threads.shutdownNow();
        }
    }
}
