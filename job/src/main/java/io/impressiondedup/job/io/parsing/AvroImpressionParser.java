package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.InputFormat;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.avro.AvroImpressionFields;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.util.function.LongSupplier;
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

    private final AvroImpressionFields fields;
    private final ImpressionAssembler assembler;
    private final EventTimeRules eventTimes;
    private final String[] keyValues;

    public AvroImpressionParser(ParserSettings settings, LongSupplier clock) {
        if (settings.inputFormat() != InputFormat.AVRO) {
            throw new IllegalArgumentException("the input format is " + settings.inputFormat() + ", not avro");
        }
        this.fields = settings.avroFields();
        this.assembler = new ImpressionAssembler(settings, clock);
        this.eventTimes = new EventTimeRules(settings);
        this.keyValues = new String[fields.keyCount()];
    }

    @Override
    public ParsedRecord parse(RawKafkaRecord raw) {
        ParsedRecord oversized = assembler.oversized(raw);
        if (oversized != null) {
            return oversized;
        }
        String error = fields.read(raw.value());
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
