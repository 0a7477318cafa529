package io.impressiondedup.job.io;

import io.impressiondedup.job.config.ParserSettings;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.function.LongSupplier;

/**
 * Turns a Kafka record into an {@link Impression}, or into a {@link DeadLetter} saying why not. Never
 * throws for bad input: one bad record must not fail the job.
 *
 * <p>Reads the value with Jackson's streaming parser, picking the three configured fields from the
 * top-level object and skipping everything else (which stays untouched in the raw bytes). A record
 * is:
 *
 * <ul>
 *   <li><b>oversized</b> if key + value exceed the maximum record size (checked before parsing);
 *   <li><b>malformed</b> if its value is null or empty, not JSON, not an object, has trailing data, or
 *       lacks a non-empty string request id, a string or integer ad id, or an event time that is an
 *       integer of epoch milliseconds or an ISO-8601 instant with an offset, within the range of epoch
 *       milliseconds and not before {@code --min-event-time} (2000-01-01 by default: no impression is
 *       that old, and such a time, negative epoch milliseconds in particular, is a watermark hazard);
 *   <li><b>future-timestamp</b> if its event time is more than the allowed skew ahead of processing
 *       time: such a record would otherwise drag the watermark ahead and make every real record after
 *       it late.
 * </ul>
 *
 * The MD5 digest of the request id is computed here, once per record, and travels with the impression.
 * One instance per source reader (it reuses its digester and JSON factory); not thread-safe.
 */
public final class ImpressionParser {

    private static final int MAX_ERROR_LENGTH = 200;

    private final ParserSettings settings;
    private final LongSupplier clock;
    private final JsonFactory json;
    private final RequestIdDigester digester = new RequestIdDigester();
    /** The event time {@link #readEventTime} read last. */
    private long parsedEventTime;

    public ImpressionParser(ParserSettings settings, LongSupplier clock) {
        this.settings = settings;
        this.clock = clock;
        this.json = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(64).build())
                .build();
    }

    public ImpressionParser(ParserSettings settings) {
        this(settings, System::currentTimeMillis);
    }

    public ParsedRecord parse(RawKafkaRecord raw) {
        if (raw.payloadSize() > settings.maxRecordBytes()) {
            return dead(raw, DeadLetterReason.OVERSIZED, "record of " + raw.payloadSize() + " bytes exceeds --max-record-bytes "
                    + settings.maxRecordBytes());
        }
        byte[] value = raw.value();
        if (value == null) {
            return dead(raw, DeadLetterReason.MALFORMED, "null value (tombstone)");
        }
        if (value.length == 0) {
            return dead(raw, DeadLetterReason.MALFORMED, "empty value");
        }
        String requestId = null;
        String adId = null;
        long eventTime = 0;
        boolean hasEventTime = false;
        try (JsonParser parser = json.createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return malformed(raw, "value is not a JSON object");
            }
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken fieldValue = parser.nextToken();
                if (field.equals(settings.requestIdField())) {
                    if (fieldValue != JsonToken.VALUE_STRING || parser.getTextLength() == 0) {
                        return malformed(raw, "'" + field + "' must be a non-empty string, but is " + describe(fieldValue));
                    }
                    requestId = parser.getText();
                } else if (field.equals(settings.adIdField())) {
                    if ((fieldValue != JsonToken.VALUE_STRING && fieldValue != JsonToken.VALUE_NUMBER_INT) || parser.getTextLength() == 0) {
                        return malformed(raw, "'" + field + "' must be a non-empty string or an integer, but is " + describe(fieldValue));
                    }
                    adId = parser.getText();
                } else if (field.equals(settings.timestampField())) {
                    String error = readEventTime(parser, fieldValue);
                    if (error != null) {
                        return malformed(raw, "'" + field + "' " + error);
                    }
                    eventTime = parsedEventTime;
                    hasEventTime = true;
                } else {
                    parser.skipChildren();
                }
            }
            if (token != JsonToken.END_OBJECT) {
                return malformed(raw, "unexpected " + token + " in the top-level object");
            }
            if (parser.nextToken() != null) {
                return malformed(raw, "trailing data after the JSON object");
            }
        } catch (JsonProcessingException e) {
            return malformed(raw, "invalid JSON: " + e.getOriginalMessage());
        } catch (IOException | RuntimeException e) {
            return malformed(raw, "unreadable value: " + e);
        }
        if (requestId == null) {
            return malformed(raw, "missing field '" + settings.requestIdField() + "'");
        }
        if (adId == null) {
            return malformed(raw, "missing field '" + settings.adIdField() + "'");
        }
        if (!hasEventTime) {
            return malformed(raw, "missing field '" + settings.timestampField() + "'");
        }
        long now = clock.getAsLong();
        if (eventTime > TimeBuckets.saturatedAdd(now, settings.maxFutureSkewMillis())) {
            return dead(raw, DeadLetterReason.FUTURE_TIMESTAMP, "event time " + Instant.ofEpochMilli(eventTime)
                    + " is more than --max-future-skew " + settings.maxFutureSkewMillis() / 1000 + "s ahead of processing time "
                    + Instant.ofEpochMilli(now));
        }
        digester.digest(requestId);
        return ParsedRecord.of(new Impression(requestId, adId, eventTime, digester.high(), digester.low(), raw));
    }

    /**
     * Reads the event time into {@link #parsedEventTime}: epoch millis from an integer, or from an
     * ISO-8601 instant with an offset. Returns null if it is valid, else what is wrong with it (to
     * follow the field's name). Nothing here can overflow: a number beyond a long, or an instant
     * beyond the range of epoch millis (years up to +/-999,999,999 parse), is reported as such.
     */
    private String readEventTime(JsonParser parser, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NUMBER_INT) {
            if (parser.getNumberType() != JsonParser.NumberType.INT && parser.getNumberType() != JsonParser.NumberType.LONG) {
                return "must be epoch milliseconds, but " + abbreviate(parser.getText()) + " is beyond the range of a long";
            }
            long millis = parser.getLongValue();
            if (millis < settings.minEventTimeMillis()) {
                return beforeMinimum(millis + " (" + Instant.ofEpochMilli(millis) + ")");
            }
            parsedEventTime = millis;
            return null;
        }
        if (token == JsonToken.VALUE_STRING) {
            String text = parser.getText();
            Instant instant;
            try {
                instant = OffsetDateTime.parse(text).toInstant();
            } catch (DateTimeException | ArithmeticException e) {
                return "must be epoch milliseconds or an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z), but is "
                        + describe(token) + " " + abbreviate(text);
            }
            // Compared as instants, before converting: a time far in the past names the option, not an overflow.
            if (instant.isBefore(settings.minEventTime())) {
                return beforeMinimum(abbreviate(text));
            }
            try {
                parsedEventTime = instant.toEpochMilli();
            } catch (ArithmeticException e) {
                return abbreviate(text) + " is beyond the range of epoch milliseconds";
            }
            return null;
        }
        return "must be epoch milliseconds (an integer) or an ISO-8601 instant (a string), but is " + describe(token) + " "
                + abbreviate(parser.getText());
    }

    private String beforeMinimum(String value) {
        return value + " is before --min-event-time " + settings.minEventTime();
    }

    private static String describe(JsonToken token) {
        if (token == null) {
            return "missing";
        }
        switch (token) {
            case VALUE_STRING:
                return "a string";
            case VALUE_NUMBER_INT:
                return "an integer";
            case VALUE_NUMBER_FLOAT:
                return "a decimal number";
            case VALUE_TRUE:
            case VALUE_FALSE:
                return "a boolean";
            case VALUE_NULL:
                return "null";
            case START_OBJECT:
                return "an object";
            case START_ARRAY:
                return "an array";
            default:
                return token.toString();
        }
    }

    private static ParsedRecord malformed(RawKafkaRecord raw, String error) {
        return dead(raw, DeadLetterReason.MALFORMED, error);
    }

    private static ParsedRecord dead(RawKafkaRecord raw, DeadLetterReason reason, String error) {
        return ParsedRecord.of(new DeadLetter(raw, reason, abbreviate(error)));
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH) + "...";
    }
}
