package io.impressiondedup.job.io.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.io.avro.AvroImpressionFields.EventTimeKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class AvroImpressionFieldsTest {

    /** A nested record on the key paths, a union ad id, and fields to skip of every composite kind. */
    static final String SCHEMA = """
            {"type": "record", "name": "Impression", "fields": [
              {"name": "attributes", "type": {"type": "map", "values": "string"}},
              {"name": "imp", "type": ["null", {"type": "record", "name": "Imp", "fields": [
                {"name": "requestId", "type": "string"},
                {"name": "adId", "type": ["null", "string", "long"]},
                {"name": "tags", "type": {"type": "array", "items": "string"}}]}]},
              {"name": "price", "type": "double"},
              {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "device", "type": {"type": "enum", "name": "Device", "symbols": ["MOBILE", "DESKTOP"]}}
            ]}""";
    static final Schema PARSED = new Schema.Parser().parse(SCHEMA);
    static final Schema IMP = PARSED.getField("imp").schema().getTypes().get(1);
    static final List<List<String>> KEYS = List.of(List.of("imp", "requestId"), List.of("imp", "adId"));
    static final List<String> TS = List.of("ts");

    private final AvroImpressionFields fields = new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(), KEYS, TS);

    @Test
    void nestedKeysAndTheEventTimeAreReadAndEverythingElseSkipped() {
        assertThat(fields.read(encode(record("r-1", "ad-9", 1_700_000_000_000L)))).isNull();
        assertThat(fields.keyText(0)).isEqualTo("r-1");
        assertThat(fields.keyText(1)).isEqualTo("ad-9");
        assertThat(fields.eventTimeKind()).isEqualTo(EventTimeKind.EPOCH_MILLIS);
        assertThat(fields.eventTimeMillis()).isEqualTo(1_700_000_000_000L);
    }

    @Test
    void aLongAdIdIsItsDecimalTextSoSevenAndQuotedSevenAreOneIdentity() {
        assertThat(fields.read(encode(record("r", 7L, 1L)))).isNull();
        String fromLong = fields.keyText(1);
        assertThat(fields.read(encode(record("r", "7", 1L)))).isNull();
        assertThat(fields.keyText(1)).isEqualTo(fromLong).isEqualTo("7");
        assertThat(fields.read(encode(record("r", -12L, 1L)))).isNull();
        assertThat(fields.keyText(1)).isEqualTo("-12");
    }

    @Test
    void aNullUnionBranchLeavesTheFieldMissingAndEverythingUnderIt() {
        assertThat(fields.read(encode(record("r", null, 5L)))).isNull();
        assertThat(fields.keyText(0)).isEqualTo("r");
        assertThat(fields.keyText(1)).isNull();

        GenericRecord noImp = record("r", "a", 5L);
        noImp.put("imp", null);
        assertThat(fields.read(encode(noImp))).isNull();
        assertThat(fields.keyText(0)).isNull();
        assertThat(fields.keyText(1)).isNull();
        assertThat(fields.eventTimeMillis()).isEqualTo(5L);
    }

    @Test
    void anEmptyKeyIsAnErrorNamingTheField() {
        assertThat(fields.read(encode(record("", "a", 5L)))).isEqualTo("'/imp/requestId': must be a non-empty string, but is empty");
    }

    @Test
    void aKeyThatIsNotValidUtf8IsAnErrorNamingTheField() {
        byte[] value = encode(record("r\u00e9x", "a", 5L));
        int at = indexOf(value, new byte[] {(byte) 0xC3, (byte) 0xA9});
        value[at] = (byte) 0xED; // ED A9 .. : an encoded UTF-16 surrogate (CESU-8), which a lenient decoder reads as U+FFFD
        value[at + 1] = (byte) 0xA0;
        assertThat(fields.read(value)).startsWith("'/imp/requestId': is not valid UTF-8");
        assertThat(fields.read(encode(record("r\u00e9x\uD83D\uDE00", "a", 5L)))).isNull();
        assertThat(fields.keyText(0)).isEqualTo("r\u00e9x\uD83D\uDE00");
    }

    @Test
    void timestampMicrosAreConvertedToMillisAndStringsLeftAsText() {
        String schema = """
                {"type": "record", "name": "T", "fields": [
                  {"name": "id", "type": "string"},
                  {"name": "ts", "type": [{"type": "long", "logicalType": "timestamp-micros"}, "string"]}]}""";
        AvroImpressionFields micros = new AvroImpressionFields(schema, AvroWirePrefix.NONE, OptionalInt.empty(), List.of(List.of("id")), TS);
        Schema parsed = new Schema.Parser().parse(schema);
        GenericRecord record = new GenericData.Record(parsed);
        record.put("id", "x");
        record.put("ts", -1_500L);
        assertThat(micros.read(encode(record))).isNull();
        assertThat(micros.eventTimeKind()).isEqualTo(EventTimeKind.EPOCH_MILLIS);
        assertThat(micros.eventTimeMillis()).isEqualTo(-2L); // rounded down, as an instant
        record.put("ts", "2026-11-23T10:00:00Z");
        assertThat(micros.read(encode(record))).isNull();
        assertThat(micros.eventTimeKind()).isEqualTo(EventTimeKind.TEXT);
        assertThat(micros.eventTimeText()).isEqualTo("2026-11-23T10:00:00Z");
    }

    @Test
    void theConfluentPrefixIsCheckedForItsMagicByteAndTheExpectedSchemaId() {
        AvroImpressionFields confluent = new AvroImpressionFields(SCHEMA, AvroWirePrefix.CONFLUENT, OptionalInt.of(42), KEYS, TS);
        byte[] record = encode(record("r", "a", 5L));
        assertThat(confluent.read(concat(new byte[] {0, 0, 0, 0, 42}, record))).isNull();
        assertThat(confluent.keyText(0)).isEqualTo("r");
        assertThat(confluent.read(concat(new byte[] {0, 0, 0, 1, 42}, record)))
                .isEqualTo("unexpected schema id 298 in the confluent wire prefix, expected 42");
        assertThat(confluent.read(concat(new byte[] {1, 0, 0, 0, 42}, record)))
                .isEqualTo("wrong magic byte 0x01: the confluent wire prefix begins with 0x00");
        assertThat(confluent.read(new byte[] {0, 0, 0})).startsWith("truncated: 3 bytes");
        assertThat(fields.read(concat(new byte[] {0, 0, 0, 0, 42}, record))).as("a prefixed value read as unprefixed").isNotNull();
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.of(1), KEYS, TS))
                .hasMessageContaining("needs the confluent wire prefix");
    }

    @Test
    void everyTruncationOfARecordIsAnErrorAndTrailingBytesToo() {
        byte[] value = encode(record("request", "ad", 1_700_000_000_000L));
        for (int length = 0; length < value.length; length++) {
            String error = fields.read(Arrays.copyOf(value, length));
            assertThat(error).as("cut to %s of %s bytes", length, value.length).isNotNull().doesNotContain("unreadable");
        }
        assertThat(fields.read(concat(value, new byte[] {0, 0}))).isEqualTo("2 trailing bytes after the record, at byte " + value.length
                + " of " + (value.length + 2));
    }

    @Test
    void aLengthOfTwoToThe31InA64KiBRecordIsAnErrorAndAllocatesNothingOfIt() {
        byte[] value = new byte[64 * 1024];
        int pos = 0;
        value[pos++] = 2; // attributes: a block of one entry
        pos = writeLong(value, pos, 1L << 31); // its key: a string of 2^31 bytes
        String skipped = measureAllocation(() -> fields.read(value));
        assertThat(skipped).startsWith("'/attributes': a map key length 2147483648 at byte 1 exceeds the");

        byte[] read = encode(record("r", "a", 5L));
        int at = indexOf(read, new byte[] {2, 'r'}); // requestId: length 1 (zigzag 2), then "r"
        byte[] hostile = concat(Arrays.copyOf(read, at), new byte[64 * 1024]);
        writeLong(hostile, at, (1L << 31) - 1);
        String needed = measureAllocation(() -> fields.read(hostile));
        assertThat(needed).startsWith("'/imp/requestId': a string length 2147483647 at byte " + at + " exceeds the");

        writeLong(hostile, at, -1);
        assertThat(fields.read(hostile)).startsWith("'/imp/requestId': a string length -1 at byte " + at);
    }

    @Test
    void anArrayOrMapBlockCountingMoreItemsThanBytesLeftIsAnError() {
        byte[] value = encode(record("r", "a", 5L));
        int tags = indexOf(value, new byte[] {2, 2, 'x', 0}); // tags: a block of one string "x", then the end
        value[tags] = 0x7E; // 63 items in the few bytes left
        assertThat(fields.read(value)).startsWith("'/imp/tags': a block of 63 items at byte " + tags + " exceeds the");
        byte[] negative = encode(record("r", "a", 5L));
        negative[tags] = 1; // -1 items, then a byte size
        negative[tags + 1] = 0x7E; // of 63 bytes
        assertThat(fields.read(negative)).startsWith("'/imp/tags': a block of 1 items in 63 bytes");
    }

    @Test
    void blocksOfZeroSizeItemsCostWorkInProportionToTheRecordNotToTheirCounts() {
        for (String items : List.of("\"null\"", "{\"type\": \"record\", \"name\": \"Empty\", \"fields\": []}",
                "{\"type\": \"record\", \"name\": \"Nulls\", \"fields\": [{\"name\": \"n\", \"type\": \"null\"}]}")) {
            String schema = "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"blocks\", \"type\": "
                    + "{\"type\": \"array\", \"items\": " + items + "}}, {\"name\": \"id\", \"type\": \"string\"}, "
                    + "{\"name\": \"ts\", \"type\": \"long\"}]}";
            AvroImpressionFields hostileShape = new AvroImpressionFields(schema, AvroWirePrefix.NONE, OptionalInt.empty(),
                    List.of(List.of("id")), TS);
            byte[] value = new byte[64 * 1024];
            int tail = value.length - 4; // the closing count 0, then id "a" and ts 0
            int pos = 0;
            long declared = 0;
            while (tail - (pos + 3) >= 8192) { // 3-byte block headers, each counting as many items as there are bytes left
                long count = value.length - (pos + 3);
                int written = writeLong(value, pos, count);
                assertThat(written).isEqualTo(pos + 3);
                declared += count;
                pos = written;
            }
            while (pos < tail) { // blocks of one item fill what a header cannot
                pos = writeLong(value, pos, 1);
                declared++;
            }
            value[tail + 1] = 2;
            value[tail + 2] = 'a';

            assertThat(hostileShape.read(value)).as(items).isNull();
            assertThat(hostileShape.keyText(0)).isEqualTo("a");
            assertThat(declared).as("items the blocks declare").isGreaterThan(500_000_000L);
            assertThat(hostileShape.skipStepsOfLastRead()).as("skip steps for a %d-byte record of %s", value.length, items)
                    .isLessThanOrEqualTo(value.length);
        }
    }

    @Test
    void aUnionIndexOrEnumSymbolOutOfRangeIsAnErrorNamingTheField() {
        byte[] value = encode(record("r", "a", 5L));
        int adId = indexOf(value, new byte[] {2, 2, 'a'}); // adId: branch 1, a string "a"
        value[adId] = 6; // branch 3 of 3
        assertThat(fields.read(value)).isEqualTo("'/imp/adId': a union branch index 3 at byte " + adId + " is out of range [0, 3)");
        byte[] enumValue = encode(record("r", "a", 5L));
        enumValue[enumValue.length - 1] = 4; // Device symbol 2 of 2
        assertThat(fields.read(enumValue)).startsWith("'/device': an enum symbol index 2 at byte " + (enumValue.length - 1));
    }

    @Test
    void aRecursiveSchemaNestedBeyondTheLimitIsAnErrorNotAStackOverflow() {
        String schema = """
                {"type": "record", "name": "Node", "fields": [
                  {"name": "id", "type": "string"}, {"name": "ts", "type": "long"},
                  {"name": "next", "type": ["null", "Node"]}]}""";
        AvroImpressionFields nodes = new AvroImpressionFields(schema, AvroWirePrefix.NONE, OptionalInt.empty(), List.of(List.of("id")), TS);
        byte[] deep = new byte[4 * 100_000 + 4];
        for (int i = 0; i <= 100_000; i++) { // id "a", ts 0, next: branch 1 ... 100,000 levels in 400 KB
            deep[4 * i] = 2;
            deep[4 * i + 1] = 'a';
            deep[4 * i + 2] = 0;
            deep[4 * i + 3] = 2;
        }
        assertThat(nodes.read(deep)).contains("nested deeper than 64");
    }

    @Test
    void randomCorruptionsNeverEscapeAsExceptions() {
        byte[] valid = encode(record("request-id", 123_456_789L, 1_700_000_000_000L));
        SplittableRandom random = new SplittableRandom(18);
        for (int i = 0; i < 20_000; i++) {
            byte[] value = valid.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                value[random.nextInt(value.length)] = (byte) random.nextInt(256);
            }
            String error = fields.read(value);
            if (error != null && error.contains("unreadable")) {
                throw new AssertionError("mutation " + i + " " + Arrays.toString(value) + ": an exception escaped the decoder: " + error);
            }
        }
    }

    @Test
    void aPathTheSchemaCannotSatisfyIsAConfigurationErrorNamingThePath() {
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(),
                List.of(List.of("imp", "requestID")), TS))
                .hasMessageStartingWith("the field path /imp/requestID is not in the Avro schema: a record 'Imp' at /imp has no field 'requestID'");
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(),
                List.of(List.of("price")), TS))
                .hasMessage("the key field /price can never be a string or an integer: it is a double");
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(), KEYS, List.of("price")))
                .hasMessage("the event time field /price must be epoch milliseconds (a long) or an ISO-8601 instant (a string), but is a double");
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(),
                List.of(List.of("price", "x")), TS))
                .hasMessage("the field path /price/x is not in the Avro schema: /price is a double, not a record");
        assertThatThrownBy(() -> new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(), List.of(List.of("imp")), TS))
                .hasMessageStartingWith("the key field /imp can never be a string or an integer");
        String localTime = SCHEMA.replace("timestamp-millis", "local-timestamp-millis");
        assertThatThrownBy(() -> new AvroImpressionFields(localTime, AvroWirePrefix.NONE, OptionalInt.empty(), KEYS, TS))
                .hasMessageContaining("/ts must be epoch milliseconds or microseconds").hasMessageContaining("no instant");
        assertThatThrownBy(() -> new AvroImpressionFields("{\"type\": \"record\"", AvroWirePrefix.NONE, OptionalInt.empty(), KEYS, TS))
                .hasMessageStartingWith("the Avro schema is not valid");
    }

    @Test
    void anEnumKeyIsItsSymbol() {
        AvroImpressionFields byDevice = new AvroImpressionFields(SCHEMA, AvroWirePrefix.NONE, OptionalInt.empty(),
                List.of(List.of("device")), TS);
        assertThat(byDevice.read(encode(record("r", "a", 5L)))).isNull();
        assertThat(byDevice.keyText(0)).isEqualTo("DESKTOP");
    }

    static GenericRecord record(String requestId, Object adId, long ts) {
        GenericRecord imp = new GenericData.Record(IMP);
        imp.put("requestId", requestId);
        imp.put("adId", adId);
        imp.put("tags", List.of("x"));
        GenericRecord record = new GenericData.Record(PARSED);
        record.put("attributes", Map.of("userAgent", "Mozilla/5.0", "country", "DE"));
        record.put("imp", imp);
        record.put("price", 1.25);
        record.put("ts", ts);
        record.put("device", new GenericData.EnumSymbol(PARSED.getField("device").schema(), "DESKTOP"));
        return record;
    }

    static byte[] encode(GenericRecord record) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code read} and checks that it allocated less than a MiB (the hostile lengths declare GiBs). */
    private static String measureAllocation(java.util.function.Supplier<String> read) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        String result = read.get();
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated reading a value declaring a 2 GiB string").isLessThan(1 << 20);
        return result;
    }

    private static int writeLong(byte[] into, int pos, long value) {
        long zigzag = (value << 1) ^ (value >> 63);
        while ((zigzag & ~0x7FL) != 0) {
            into[pos++] = (byte) ((zigzag & 0x7F) | 0x80);
            zigzag >>>= 7;
        }
        into[pos++] = (byte) zigzag;
        return pos;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] joined = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }

    private static int indexOf(byte[] value, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= value.length; i++) {
            for (int k = 0; k < part.length; k++) {
                if (value[i + k] != part[k]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found: " + Arrays.toString(part));
    }
}
