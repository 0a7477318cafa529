package io.impressiondedup.testdata.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;

class ImpressionGeneratorAvroTest {

    private static final int COUNT = 8_000;

    private static List<GeneratedRecord> generate(ValueFormat format, Integer schemaId) {
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(COUNT).seed(18)
                .start(Instant.parse("2026-11-20T00:00:00Z")).span(Duration.ofDays(3)).malformedShare(0.05)
                .format(format).avroSchemaId(schemaId).build());
        List<GeneratedRecord> records = new ArrayList<>();
        generator.forEachRemaining(records::add);
        return records;
    }

    @Test
    void theSameSeedGivesTheSameRecordsAndGroundTruthInJsonAndAvro() {
        List<GeneratedRecord> json = generate(ValueFormat.JSON, null);
        List<GeneratedRecord> avro = generate(ValueFormat.AVRO, 7);
        assertThat(avro).hasSameSizeAs(json);
        for (int i = 0; i < json.size(); i++) {
            GeneratedRecord j = json.get(i);
            GeneratedRecord a = avro.get(i);
            assertThat(a.toString()).isEqualTo(j.toString());
            assertThat(a.expectedReason).isEqualTo(j.expectedReason);
            assertThat(a.key).isEqualTo(j.key);
            assertThat(a.valueIsJsonObject).isFalse();
        }
    }

    @Test
    void everyAvroImpressionReadsBackWithAvrosOwnReaderAgainstTheShippedSchema() throws IOException {
        Schema schema = new Schema.Parser().parse(GeneratorSettings.avroSchemaText());
        GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(schema);
        long jsonBytes = 0;
        long avroBytes = 0;
        List<GeneratedRecord> json = generate(ValueFormat.JSON, null);
        List<GeneratedRecord> avro = generate(ValueFormat.AVRO, 7);
        int impressions = 0;
        for (int i = 0; i < avro.size(); i++) {
            GeneratedRecord record = avro.get(i);
            if (record.recordClass == RecordClass.MALFORMED) {
                continue;
            }
            impressions++;
            jsonBytes += json.get(i).value.length;
            avroBytes += record.value.length;
            assertThat(record.value).startsWith(0, 0, 0, 0, 7);
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(record.value, 5, record.value.length - 5, null);
            GenericRecord read = reader.read(null, decoder);
            assertThat(decoder.isEnd()).as("no trailing bytes in %s", record).isTrue();
            assertThat(read.get("requestId").toString()).isEqualTo(record.requestId);
            assertThat(read.get("adId").toString()).isEqualTo(record.adId);
            Object ts = read.get("ts");
            long eventTime = ts instanceof Long millis ? millis : Instant.parse(ts.toString()).toEpochMilli();
            assertThat(eventTime).isEqualTo(record.eventTime);
            assertThat(((GenericRecord) read.get("placement")).get("campaignId").toString()).startsWith("cmp-");
            assertThat((java.util.Map<?, ?>) read.get("attributes")).hasSize(4);
        }
        assertThat(impressions).isGreaterThan(COUNT * 9 / 10);
        // Passthrough attributes keep the payload realistic: an Avro value about the size of the JSON one (no field names).
        assertThat((double) avroBytes / jsonBytes).as("Avro bytes / JSON bytes (%s / %s)", avroBytes / impressions, jsonBytes / impressions)
                .isBetween(0.75, 1.05);
    }

    @Test
    void aWirePrefixNeedsTheAvroFormat() {
        assertThatThrownBy(() -> GeneratorSettings.builder().avroSchemaId(1).build())
                .hasMessageContaining("--avro-wire-prefix confluent (schema id 1) needs --format avro");
    }
}
