package io.impressiondedup.job.io.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.io.avro.AvroImpressionFields.EventTimeKind;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.ValueFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The reader on the generator's Avro records (impression.avsc, nested records, a map, unions, the wire prefix). */
class AvroImpressionFieldsOnGeneratedRecordsTest {

    @Test
    void everyGeneratedImpressionReadsAsItsGroundTruthAndNoMalformedOneAsAValidImpression() {
        GeneratorSettings settings = GeneratorSettings.builder().count(8_000).seed(5).start(Instant.parse("2026-11-20T00:00:00Z"))
                .span(Duration.ofDays(3)).malformedShare(0.1).format(ValueFormat.AVRO).avroSchemaId(3).build();
        AvroImpressionFields fields = new AvroImpressionFields(GeneratorSettings.avroSchemaText(), AvroWirePrefix.CONFLUENT,
                OptionalInt.of(3), List.of(List.of("requestId"), List.of("adId"), List.of("placement", "publisherId")), List.of("ts"));
        ImpressionGenerator generator = new ImpressionGenerator(settings);
        int malformed = 0;
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            String error = fields.read(record.value);
            if (record.recordClass == RecordClass.MALFORMED) {
                malformed++;
                if ("oversized".equals(record.expectedReason)) {
                    assertThat(error).as("an oversized record is valid Avro, refused by its size").isNull();
                } else {
                    assertThat(error != null || fields.keyText(0) == null || fields.keyText(1) == null || !validEventTime(fields))
                            .as("malformed %s read as an impression", record).isTrue();
                }
                continue;
            }
            assertThat(error).as("%s", record).isNull();
            assertThat(fields.keyText(0)).isEqualTo(record.requestId);
            assertThat(fields.keyText(1)).isEqualTo(record.adId);
            assertThat(fields.keyText(2)).startsWith("pub-");
            long eventTime = fields.eventTimeKind() == EventTimeKind.EPOCH_MILLIS ? fields.eventTimeMillis()
                    : Instant.parse(fields.eventTimeText()).toEpochMilli();
            assertThat(eventTime).isEqualTo(record.eventTime);
        }
        assertThat(malformed).isGreaterThan(500);
    }

    /** The event-time rules in short (the shared ones live with the parser): an instant not before 2000. */
    private static boolean validEventTime(AvroImpressionFields fields) {
        long min = Instant.parse("2000-01-01T00:00:00Z").toEpochMilli();
        switch (fields.eventTimeKind()) {
            case EPOCH_MILLIS:
                return fields.eventTimeMillis() >= min;
            case TEXT:
                try {
                    return OffsetDateTime.parse(fields.eventTimeText()).toInstant().toEpochMilli() >= min;
                } catch (RuntimeException e) {
                    return false;
                }
            default:
                return false;
        }
    }
}
