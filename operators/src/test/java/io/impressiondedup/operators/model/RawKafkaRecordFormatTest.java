package io.impressiondedup.operators.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The wire format is symmetric: write refuses what read would refuse, and everything else round-trips. */
class RawKafkaRecordFormatTest {

    static RawKafkaRecord withHeaders(int count) {
        String[] keys = new String[count];
        byte[][] values = new byte[count][];
        Arrays.fill(keys, "h");
        for (int i = 0; i < count; i++) {
            values[i] = i % 3 == 0 ? null : new byte[] {(byte) i};
        }
        return new RawKafkaRecord("in", 0, 9L, 1L, new byte[] {1}, new byte[] {2}, keys, values);
    }

    static RawKafkaRecord roundTrip(RawKafkaRecord record) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).write(record, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        RawKafkaRecord read = new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).read(in);
        assertThat(in.available()).isZero();
        return read;
    }

    @Test
    void aRecordWithTheMostHeadersTheFormatCarriesRoundTrips() throws IOException {
        RawKafkaRecord atLimit = withHeaders(65_536);
        assertThat(roundTrip(atLimit)).isEqualTo(atLimit);
        assertThat(roundTrip(withHeaders(0))).isEqualTo(withHeaders(0));
    }

    @Test
    void writeRefusesMoreHeadersThanReadAccepts() {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        assertThatThrownBy(() -> new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).write(withHeaders(70_000), out))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("70000 headers").hasMessageContaining("65536").hasMessageContaining("in-0@9");
    }

    @Test
    void readRefusesACorruptHeaderCount() {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        assertThatThrownBy(() -> {
            new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).write(withHeaders(1), out);
            byte[] bytes = out.getCopyOfBuffer();
            // the record ends with the header count (4 bytes), then its one header: key "h" (4 + 1 bytes), null value (4 bytes)
            bytes[bytes.length - 13] = 0x7f;
            new RawKafkaRecordFormat(RawKafkaRecordFormat.V2).read(new DataInputDeserializer(bytes));
        }).isInstanceOf(IOException.class).hasMessageContaining("Corrupt record");
    }
}
