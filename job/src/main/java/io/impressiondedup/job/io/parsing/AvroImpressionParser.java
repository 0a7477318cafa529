package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.InputFormat;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.avro.AvroImpressionFields;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.registry.SchemaIdKind;
import io.impressiondedup.job.io.registry.WriterSchemas;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.MetricGroup;
import io.impressiondedup.job.io.eventtime.EventTimeRules;

/**
 * The Avro input's parser ({@code --input-format avro}): a record is
 *
 * <ul>
 *   <li><b>oversized</b> if key + value + headers exceed {@code --max-record-bytes} (checked before reading);
 *   <li><b>malformed</b> if its value is no record of the schema with the configured wire prefix ({@link
 *       AvroImpressionFields} says why, naming the field by its path, or the record: truncated, trailing bytes,
 *       wrong magic byte, unexpected schema id), if a key field or the event time is missing (behind a null union
 *       branch), or if its event time breaks {@link EventTimeRules} (before {@code --min-event-time}, a string that
 *       is no ISO-8601 instant);
 *   <li><b>schema-unknown</b>, with a schema registry ({@code --avro-schema-registry-url}), if the registry has no schema
 *       of the id the value carries ({@link WriterSchemas}: it answered 404); <b>malformed</b> if the value carries no
 *       sound id, or if its schema lacks a field the job reads. While the registry does not answer, the call waits.
 *   <li><b>future-timestamp</b> and otherwise an impression, by {@link ImpressionAssembler}, as for JSON.
 * </ul>
 *
 * Every dead letter names a field by its JSON Pointer ({@code /adId}, {@code /imp/ts}), top-level ones included, as
 * the reader names any field it fails in (also one it skips): so the missing-field and event-time messages are
 * worded here, not by the assembler, which would name a top-level field as configured ({@code adId}).
 *
 * <p>A key field is read as its text (a string, an int's or long's decimal digits, an enum's symbol), so an Avro and a
 * JSON record with the same values have the same identity. The schema's fit to the field options (each path in it,
 * of a usable type) is checked at start by {@code DedupJobConfig}, which builds this parser's reader once.
 */
public final class AvroImpressionParser implements RecordParser {

    /** The reader of the one schema of {@code --avro-schema-file}, or null with a registry. */
    private final AvroImpressionFields fixedFields;
    /** With a registry: the reader of each writer schema, by the id a value carries; else null. */
    private final WriterSchemas writerSchemas;
    private final AvroWirePrefix prefix;
    private final ImpressionAssembler assembler;
    private final EventTimeRules eventTimes;
    private final String[] keyValues;

    /** @param metrics where a registry's metrics go ({@link WriterSchemas}) */
    public AvroImpressionParser(ParserSettings settings, LongSupplier clock, MetricGroup metrics) {
        if (settings.inputFormat() != InputFormat.AVRO) {
            throw new IllegalArgumentException("the input format is " + settings.inputFormat() + ", not avro");
        }
        if (settings.schemaRegistry() == null) {
            this.fixedFields = settings.avroFields();
            this.writerSchemas = null;
        } else {
            this.fixedFields = null;
            this.writerSchemas = new WriterSchemas(settings.schemaRegistry(), settings::avroFieldsFor, metrics);
        }
        this.prefix = settings.avroWirePrefix();
        this.assembler = new ImpressionAssembler(settings, clock);
        this.eventTimes = new EventTimeRules(settings);
        this.keyValues = new String[settings.keyFields().size()];
    }

    /** "writer schema id 7", for a dead letter's message; built only for one. */
    private static String named(SchemaIdKind kind, long schemaId) {
        return "writer schema " + (kind == null ? "id" : WriterSchemas.describe(kind)) + " " + Long.toUnsignedString(schemaId);
    }

    /** The index of {@code raw}'s last header named {@code key}, or -1 (Kafka's rule: the last one wins). */
    private static int lastHeader(RawKafkaRecord raw, String key) {
        for (int i = raw.headerCount() - 1; i >= 0; i--) {
            if (key.equals(raw.headerKey(i))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public ParsedRecord parse(RawKafkaRecord raw) {
        ParsedRecord oversized = assembler.oversized(raw);
        if (oversized != null) {
            return oversized;
        }
        AvroImpressionFields fields = fixedFields;
        String error;
        if (writerSchemas == null) {
            error = fields.read(raw.value());
        } else {
            byte[] value = raw.value();
            error = value == null ? "null value (tombstone)" : value.length == 0 ? "empty value" : prefix.check(value);
            if (error == null) {
                SchemaIdKind kind = SchemaIdKind.GLOBAL_ID;
                long schemaId;
                if (prefix.isInValue()) {
                    kind = null;
                    schemaId = prefix.schemaId(value);
                } else {
                    int header = lastHeader(raw, SchemaIdKind.GLOBAL_ID_HEADER);
                    if (header < 0) {
                        kind = SchemaIdKind.CONTENT_ID;
                        header = lastHeader(raw, SchemaIdKind.CONTENT_ID_HEADER);
                    }
                    byte[] id = header < 0 ? null : raw.headerValue(header);
                    if (id == null || id.length != Long.BYTES) {
                        return ImpressionAssembler.malformed(raw, header < 0
                                ? "no header " + SchemaIdKind.GLOBAL_ID_HEADER + " or " + SchemaIdKind.CONTENT_ID_HEADER + " with the schema id"
                                : "header " + raw.headerKey(header) + " is " + (id == null ? "null" : id.length + " bytes")
                                        + ", not an 8-byte schema id");
                    }
                    schemaId = 0;
                    for (byte b : id) {
                        schemaId = schemaId << 8 | (b & 0xFF); // big-endian
                    }
                }
                WriterSchemas.Resolution schema = kind == null ? writerSchemas.resolve(schemaId) : writerSchemas.resolve(kind, schemaId);
                if (schema.unknown() != null) {
                    return ParsedRecord.of(new DeadLetter(raw, DeadLetterReason.SCHEMA_UNKNOWN, named(kind, schemaId) + " of the " + prefix
                            + " wire prefix: " + schema.unknown()));
                }
                schema.countRecord();
                if (schema.unusable() != null) {
                    return ImpressionAssembler.malformed(raw, named(kind, schemaId) + ": " + schema.unusable());
                }
                fields = schema.fields();
                error = fields.readRecordAt(value, prefix.length());
            }
        }
        if (error != null) {
            return ImpressionAssembler.malformed(raw, error);
        }
        for (int i = 0; i < keyValues.length; i++) {
            keyValues[i] = fields.keyText(i);
            if (keyValues[i] == null) {
                return ImpressionAssembler.malformed(raw, "missing field '" + fields.keyPointer(i) + "'");
            }
        }
        String timeError;
        switch (fields.eventTimeKind()) {
            case EPOCH_MILLIS:
                timeError = eventTimes.epochMillisError(fields.eventTimeMillis());
                break;
            case TEXT:
                timeError = eventTimes.isoInstantError(fields.eventTimeText());
                break;
            default:
                return ImpressionAssembler.malformed(raw, "missing field '" + fields.timestampPointer() + "'");
        }
        if (timeError != null) {
            return ImpressionAssembler.malformed(raw, "'" + fields.timestampPointer() + "' " + timeError);
        }
        return assembler.assemble(raw, keyValues, true, eventTimes.lastValid());
    }
}
