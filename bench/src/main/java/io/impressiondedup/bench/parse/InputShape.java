package io.impressiondedup.bench.parse;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.parsing.RecordParser;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.registry.SchemaRegistryApi;
import io.impressiondedup.job.io.registry.SchemaRegistrySettings;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.generate.ValueFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The input formats the parse benchmarks compare, on the same generator records (seed 3, the same impressions in every
 * format): each one a layout or encoding of the records and the settings that read it, read by the job's own parser of
 * that format ({@link RecordParser#of}: size check, fields, checks, MD5 digest, the impression built). The clock of
 * every parser is fixed past every event time, so no record is refused as future.
 */
public enum InputShape {

    /** Today's layout: one flat object, read by top-level names (the fast path). */
    FLAT {
        @Override
        ParserSettings settings() {
            return new ParserSettings("requestId", "adId", "ts", 1 << 20, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }
    },
    /**
     * The same impressions nested, {@code {"imp":{"requestId":..,"adId":..,"ts":..,"campaignId":..,"placementId":..},
     * "site":{"publisherId":..,...}}}, read by the pointers {@code /imp/requestId}, {@code /imp/adId}, {@code /imp/ts}
     * (Jackson, walking into "imp" and skipping "site").
     */
    NESTED {
        @Override
        ParserSettings settings() {
            return new ParserSettings("/imp/requestId", "/imp/adId", "/imp/ts", 1 << 20, Duration.ofHours(1),
                    ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }

        @Override
        byte[] layout(byte[] flat) {
            String json = new String(flat, StandardCharsets.UTF_8);
            int site = json.indexOf(",\"publisherId\":");
            if (!json.startsWith("{\"requestId\":") || site < 0 || !json.endsWith("}")) {
                return flat; // a malformed record: a dead letter either way
            }
            return ("{\"imp\":" + json.substring(0, site) + "},\"site\":{" + json.substring(site + 1, json.length() - 1) + "}}")
                    .getBytes(StandardCharsets.UTF_8);
        }
    },
    /** The flat layout with a three-field key, {@code --dedup-key requestId;adId;placementId} (the fast path, four names). */
    FLAT_THREE_FIELD_KEY {
        @Override
        ParserSettings settings() {
            return new ParserSettings(List.of(FieldPath.parse("requestId"), FieldPath.parse("adId"), FieldPath.parse("placementId")),
                    FieldPath.parse("ts"), 1 << 20, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }
    },
    /**
     * The same impressions in Avro ({@code impression.avsc}: the placement and device in nested records, a map of
     * attributes), the value the record alone, read by {@code AvroImpressionParser} by top-level names.
     */
    AVRO {
        @Override
        ParserSettings settings() {
            return FLAT.settings().withAvro(GeneratorSettings.avroSchemaText(), AvroWirePrefix.NONE, OptionalInt.empty());
        }

        @Override
        ValueFormat format() {
            return ValueFormat.AVRO;
        }
    },
    /** {@link #AVRO} with the schema registry's 5-byte wire prefix, its schema id checked ({@code --avro-schema-id 1}). */
    AVRO_CONFLUENT {
        @Override
        ParserSettings settings() {
            return FLAT.settings().withAvro(GeneratorSettings.avroSchemaText(), AvroWirePrefix.CONFLUENT, OptionalInt.of(1));
        }

        @Override
        ValueFormat format() {
            return ValueFormat.AVRO;
        }

        @Override
        Integer schemaId() {
            return 1;
        }
    },
    /**
     * {@link #AVRO_CONFLUENT}'s values read through a schema registry ({@code --avro-schema-registry-url}, Confluent
     * API): the schema of id 1 fetched once ({@link ServedSchema}) and kept, each record's id looked up among the kept.
     */
    AVRO_REGISTRY {
        @Override
        ParserSettings settings() {
            return FLAT.settings().withAvroRegistry(SchemaRegistrySettings.builder(ServedSchema.url(GeneratorSettings.avroSchemaText()),
                    SchemaRegistryApi.CONFLUENT, AvroWirePrefix.CONFLUENT).build());
        }

        @Override
        ValueFormat format() {
            return ValueFormat.AVRO;
        }

        @Override
        Integer schemaId() {
            return 1;
        }
    };

    abstract ParserSettings settings();

    /** How the generator writes this shape's values. */
    ValueFormat format() {
        return ValueFormat.JSON;
    }

    /** The wire prefix's schema id the generator writes, or null for none. */
    Integer schemaId() {
        return null;
    }

    /** The record {@code flat} (the generator's layout) in this shape's layout. */
    byte[] layout(byte[] flat) {
        return flat;
    }

    /** The job's parser of this shape. */
    public RecordParser parser() {
        return RecordParser.of(settings(), () -> Long.MAX_VALUE / 2);
    }

    /** {@code count} generator records (seed 3) in this shape's layout. */
    public RawKafkaRecord[] records(int count) {
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(count).seed(3).format(format())
                .avroSchemaId(schemaId()).build());
        List<RawKafkaRecord> raw = new ArrayList<>();
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            raw.add(RawKafkaRecord.ofValue("impressions", 0, raw.size(), record.value == null ? null : layout(record.value)));
        }
        return raw.toArray(new RawKafkaRecord[0]);
    }
}
