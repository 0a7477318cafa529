package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.eventtime.EventTimeRules;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The JSON input's {@link RecordParser} ({@code --input-format json}, the default): turns a Kafka record of JSON into an {@link Impression}, or into a {@link DeadLetter} saying why not. Never
 * throws for bad input: one bad record must not fail the job.
 *
 * <p>Reads the value with Jackson's streaming parser, picking the configured fields (the key fields and the
 * event time, each a top-level name or a JSON Pointer into objects: {@link FieldPath}) and skipping everything
 * else (which stays untouched in the raw bytes). It walks into an object only if a configured path goes
 * through it ({@link FieldPathTree}). What it found goes to {@link ImpressionAssembler}, which every format shares (missing fields,
 * far-future times, the digest and the identity rule of {@link DedupKey}). A record is:
 *
 * <ul>
 *   <li><b>oversized</b> if key + value exceed the maximum record size (checked before parsing);
 *   <li><b>malformed</b> if its value is null or empty, not UTF-8, not JSON, not an object, has trailing
 *       data or a name twice in the top-level object or in an object on a configured path, has something
 *       other than an object where a path needs one ({@code "imp":[...]} for {@code /imp/requestId}),
 *       lacks a key field that is a non-empty string or an integer (the default key's request id: a string),
 *       or an event time valid by {@link EventTimeRules}, or if a key field's string is not a valid
 *       Unicode string (below); the error names the field by its configured path;
 *   <li><b>future-timestamp</b> if its event time is more than the allowed skew ahead of processing
 *       time.
 * </ul>
 *
 * No record may be read with two identities, and no two records with distinct ids with one:
 *
 * <ul>
 *   <li>A name given twice ({@code {"requestId":"a","requestId":"b"}}) in the top-level object or in an object
 *       a configured path goes through is malformed, naming the field: a reader that keeps the first value and
 *       one that keeps the last (as Jackson's databind does) would disagree on the record's identity. Other
 *       nested objects are passed through, not read, and not checked.
 *   <li>A key string with an unpaired UTF-16 surrogate (escaped, {@code "r\ud800"}) or whose
 *       bytes are not UTF-8 (RFC 3629, {@link Utf8Validity}) is malformed: Jackson decodes overlong forms ({@code C0 AF} for
 *       '/'), encoded surrogates ({@code ED A0 80}) and code points beyond U+10FFFF without complaint, and
 *       the UTF-8 encoding of a string with unpaired surrogates (for the digest, or by any consumer)
 *       replaces them by '?', so {@code "r\ud800"}, {@code "r\udbff"} and {@code "r?"} would be one
 *       identity. Any other invalid UTF-8, which Jackson rejects (a byte that starts no sequence, a
 *       truncated sequence), is malformed wherever it is; the kinds Jackson decodes are checked in the key
 *       fields only, which alone make the identity: the rest of the record passes through untouched.
 *   <li>A value Jackson would read as UTF-16 or UTF-32 (a zero byte among the first four, or their
 *       byte-order mark) is malformed: JSON between systems is UTF-8 (RFC 8259, 8.1), and that decoding
 *       replaces unpaired surrogates by U+FFFD.
 * </ul>
 *
 * These checks keep the hot path one pass of the streaming parser: the names of each object read are compared
 * with those of the previous record's object at the same path ({@link SeenFieldNames}), which a stream of
 * records of one layout matches name for name, and hashed only from where a record departs from it; an id is
 * scanned once for characters beyond ASCII, and its raw bytes only if it has some or is longer in bytes than
 * in characters (an escape).
 *
 * <p>Most records never reach Jackson: when every configured field is a top-level name,
 * {@link FlatImpressionScanner} reads the common shape (one flat object of printable ASCII without escapes) in
 * one pass of its own, at a fraction of the cost, and accepts only what Jackson reads without error as a
 * record with no top-level name twice and no trailing data; the fields it finds are then checked by the same
 * code as Jackson's (event time rules, empty ids). Anything else, and any record that would be a dead letter,
 * goes to Jackson, which words every dead letter: the fast path changes the cost, not a result
 * ({@code FlatImpressionScannerDifferentialTest} holds the two to that). Records read by pointers into
 * objects always go to Jackson (bench/README.md, "Input formats", has the cost).
 *
 * <p>One instance per source reader (it reuses its digester and JSON factory); not thread-safe.
 */
public final class JsonImpressionParser implements RecordParser {

    /** Eight bytes of a value at once. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final ParserSettings settings;
    private final JsonFactory json;
    private final StreamReadConstraints constraints;
    private final ImpressionAssembler assembler;
    private final EventTimeRules eventTimes;
    /** The configured paths as a tree of member names, from the top-level object. */
    private final FieldPathTree root;
    /** The fast path for the common shape of a record, or null: Jackson reads every record. */
    private final FlatImpressionScanner scanner;
    /** How many key fields; the event time is field {@code keyCount} of the scanner and of {@link FieldPathTree#target}. */
    private final int keyCount;
    /** The key fields' texts and the event time of the record being parsed, as {@link #readFlat} or {@link #readWithJackson} found them. */
    private final String[] keyValues;
    private long eventTime;
    private boolean hasEventTime;

    public JsonImpressionParser(ParserSettings settings, LongSupplier clock) {
        this(settings, clock, true);
    }

    /**
     * With {@code fastPath} false, Jackson reads every record: for the test that holds the two paths to the
     * same results, not a production option.
     */
    JsonImpressionParser(ParserSettings settings, LongSupplier clock, boolean fastPath) {
        this.settings = settings;
        this.assembler = new ImpressionAssembler(settings, clock);
        this.eventTimes = new EventTimeRules(settings);
        List<FieldPath> fields = new ArrayList<>(settings.keyFields());
        fields.add(settings.timestampField());
        this.keyCount = fields.size() - 1;
        this.keyValues = new String[keyCount];
        this.root = FieldPathTree.of(fields);
        boolean allTopLevel = fields.stream().allMatch(FieldPath::isTopLevel);
        this.scanner = fastPath && allTopLevel
                ? new FlatImpressionScanner(fields.stream().map(f -> f.tokens().get(0)).toArray(String[]::new))
                : null;
        this.constraints = StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(64).build();
        this.json = JsonFactory.builder().streamReadConstraints(constraints).build();
    }

    public JsonImpressionParser(ParserSettings settings) {
        this(settings, System::currentTimeMillis);
    }

    @Override
    public ParsedRecord parse(RawKafkaRecord raw) {
        ParsedRecord oversized = assembler.oversized(raw);
        if (oversized != null) {
            return oversized;
        }
        byte[] value = raw.value();
        if (value == null) {
            return malformed(raw, "null value (tombstone)");
        }
        if (value.length == 0) {
            return malformed(raw, "empty value");
        }
        if (!Utf8Validity.readAsUtf8(value)) {
            return malformed(raw, "value is not UTF-8: it begins like UTF-16 or UTF-32 (" + Utf8Validity.hex(value, 0, Math.min(4, value.length)) + ")");
        }
        if (scanner == null || !readFlat(value)) {
            ParsedRecord malformed = readWithJackson(raw, value);
            if (malformed != null) {
                return malformed;
            }
        }
        return assembler.assemble(raw, keyValues, hasEventTime, eventTime);
    }

    /**
     * The fast path: true if {@link FlatImpressionScanner} accepts the value and each configured field it
     * has is valid, {@link #keyValues} and the event time then set exactly as {@link #readWithJackson} would
     * set them (a missing field stays null, for the same message). False for anything else, a field the
     * Jackson path would refuse included: that path then reads the record and words every dead letter, the
     * first error in the record's order.
     */
    private boolean readFlat(byte[] value) {
        FlatImpressionScanner scan = scanner;
        if (!scan.scan(value)) {
            return false;
        }
        for (int t = 0; t < keyCount; t++) {
            byte kind = scan.kind[t];
            if (kind == FlatImpressionScanner.ABSENT) {
                keyValues[t] = null;
                continue;
            }
            // An integer's text is as written ("-0" stays "-0"), as Jackson's getText gives it.
            if ((kind != FlatImpressionScanner.STRING && (kind != FlatImpressionScanner.INTEGER || !settings.integerAllowed(t)))
                    || scan.end[t] == scan.start[t]) {
                return false;
            }
            keyValues[t] = ascii(value, scan.start[t], scan.end[t]);
        }
        int ts = keyCount;
        boolean timed = scan.kind[ts] != FlatImpressionScanner.ABSENT;
        if (scan.kind[ts] == FlatImpressionScanner.INTEGER) {
            // Up to 18 characters always fit a long; longer ones (and what does not fit) are the Jackson path's.
            if (scan.end[ts] - scan.start[ts] > 18 || eventTimes.epochMillisError(parseLong(value, scan.start[ts], scan.end[ts])) != null) {
                return false;
            }
        } else if (scan.kind[ts] == FlatImpressionScanner.STRING) {
            if (eventTimes.isoInstantError(ascii(value, scan.start[ts], scan.end[ts])) != null) {
                return false;
            }
        } else if (timed) {
            return false;
        }
        hasEventTime = timed;
        eventTime = timed ? eventTimes.lastValid() : 0;
        return true;
    }

    /** Bytes the scanner accepted (all ASCII) as a string. */
    private static String ascii(byte[] value, int from, int to) {
        return new String(value, from, to - from, StandardCharsets.ISO_8859_1);
    }

    /** An integer of at most 18 characters the scanner accepted: an optional minus, then digits. */
    private static long parseLong(byte[] value, int from, int to) {
        boolean negative = value[from] == '-';
        long result = 0;
        for (int i = negative ? from + 1 : from; i < to; i++) {
            result = 10 * result + (value[i] - '0');
        }
        return negative ? -result : result;
    }

    /**
     * The Jackson path, reading any value: null if it read the value as a JSON object without error (setting
     * {@link #keyValues} and the event time from the fields it has), else the dead letter.
     */
    private ParsedRecord readWithJackson(RawKafkaRecord raw, byte[] value) {
        Arrays.fill(keyValues, null);
        eventTime = 0;
        hasEventTime = false;
        try (JsonParser parser = factoryFor(value).createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return malformed(raw, "value is not a JSON object");
            }
            ParsedRecord malformed = readObject(raw, value, parser, root);
            if (malformed != null) {
                return malformed;
            }
            if (parser.nextToken() != null) {
                return malformed(raw, "trailing data after the JSON object");
            }
        } catch (JsonProcessingException e) {
            int invalidUtf8 = Utf8Validity.invalidOffset(value, 0, value.length);
            if (invalidUtf8 >= 0) {
                // Jackson found a byte that starts no UTF-8 sequence, or a truncated one: say which, and in which field.
                return malformed(raw, Utf8Validity.describeInvalid(topLevelFieldAt(value, invalidUtf8), value, invalidUtf8));
            }
            return malformed(raw, "invalid JSON: " + e.getOriginalMessage());
        } catch (IOException | RuntimeException e) {
            return malformed(raw, "unreadable value: " + e);
        }
        return null;
    }

    /**
     * Reads the members of the object {@code parser} has just entered, the object at {@code node}'s path: the
     * configured fields in it, the objects on a configured path (recursively), nothing else. Null if it read to
     * the object's end without error, else the dead letter.
     */
    private ParsedRecord readObject(RawKafkaRecord raw, byte[] value, JsonParser parser, FieldPathTree node) throws IOException {
        node.names.startRecord();
        JsonToken token;
        while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            if (!node.names.add(field)) {
                return malformed(raw, "duplicate field '" + node.nameOf(field) + "'");
            }
            JsonToken fieldValue = parser.nextToken();
            FieldPathTree child = node.child(field);
            if (child == null) {
                parser.skipChildren();
            } else if (child.target >= 0) {
                String error = readField(parser, value, fieldValue, child.target, child.label);
                if (error != null) {
                    return malformed(raw, error);
                }
            } else if (fieldValue != JsonToken.START_OBJECT) {
                return malformed(raw, "'" + child.label + "' must be an object (on the path of '" + child.firstField + "'), but is "
                        + describe(fieldValue));
            } else {
                ParsedRecord malformed = readObject(raw, value, parser, child);
                if (malformed != null) {
                    return malformed;
                }
            }
        }
        if (token != JsonToken.END_OBJECT) {
            return malformed(raw, "unexpected " + token + " in the " + (node == root ? "top-level object" : "object '" + node.label + "'"));
        }
        return null;
    }

    /**
     * Reads configured field {@code target} (a key field, or the event time if it is {@link #keyCount}), whose value
     * {@code token} the parser is on, into {@link #keyValues} or the event time. Null if it is valid, else what is
     * wrong with it, naming the field by {@code label}, its configured path.
     */
    private String readField(JsonParser parser, byte[] value, JsonToken token, int target, String label) throws IOException {
        if (target == keyCount) {
            String error = readEventTime(parser, token);
            if (error != null) {
                return "'" + label + "' " + error;
            }
            eventTime = eventTimes.lastValid();
            hasEventTime = true;
            return null;
        }
        boolean integerAllowed = settings.integerAllowed(target);
        if ((token != JsonToken.VALUE_STRING && (token != JsonToken.VALUE_NUMBER_INT || !integerAllowed)) || parser.getTextLength() == 0) {
            return "'" + label + "' must be a non-empty string" + (integerAllowed ? " or an integer" : "") + ", but is " + describe(token);
        }
        String text = parser.getText();
        keyValues[target] = text;
        return token == JsonToken.VALUE_STRING ? identityError(parser, value, label, text) : null;
    }

    /**
     * {@link #json}, or a new factory of the same settings if the value has a 0xFF byte. Jackson's factory keeps
     * a table of the field names it has read, looked up by a name's bytes in groups of four, the last group
     * padded with 0xFF bytes, comparing groups only: so once a record had the name {@code "requestId"}, the
     * bytes {@code "requestI\xFF\xFF\xFFd"} are found as it and never decoded (which rejects 0xFF), and a
     * record that is malformed read first would be an impression read later. A new factory's table holds only
     * the record's own names: what Jackson makes of the record does not depend on the records before it.
     * No UTF-8 has a 0xFF byte: valid records never pay for this.
     */
    private JsonFactory factoryFor(byte[] value) {
        return hasByteFF(value) ? JsonFactory.builder().streamReadConstraints(constraints).build() : json;
    }

    /**
     * Whether {@code value} has a 0xFF byte, eight bytes at a time: y = ~x has a zero byte where x has 0xFF, and
     * {@code (y - 0x01..) & ~y & 0x80..} is non-zero exactly if y has a zero byte.
     */
    static boolean hasByteFF(byte[] value) {
        int n = value.length;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long y = ~(long) LONGS.get(value, i);
            if (((y - 0x0101010101010101L) & ~y & 0x8080808080808080L) != 0) {
                return true;
            }
        }
        for (; i < n; i++) {
            if (value[i] == (byte) 0xFF) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks the event time the parser is on with {@link #eventTimes} (valid: then {@link EventTimeRules#lastValid()}):
     * epoch millis from an integer, or an ISO-8601 instant with an offset from a string. Returns null if it is
     * valid, else what is wrong with it (to follow the field's name). A number beyond a long is reported as such.
     */
    private String readEventTime(JsonParser parser, JsonToken token) throws IOException {
        if (token == JsonToken.VALUE_NUMBER_INT) {
            if (parser.getNumberType() != JsonParser.NumberType.INT && parser.getNumberType() != JsonParser.NumberType.LONG) {
                return "must be epoch milliseconds, but " + DeadLetter.abbreviated(parser.getText()) + " is beyond the range of a long";
            }
            return eventTimes.epochMillisError(parser.getLongValue());
        }
        if (token == JsonToken.VALUE_STRING) {
            return eventTimes.isoInstantError(parser.getText());
        }
        return "must be epoch milliseconds (an integer) or an ISO-8601 instant (a string), but is " + describe(token) + " "
                + DeadLetter.abbreviated(parser.getText());
    }

    /**
     * Null if the string just read, {@code text}, is an identity no other string value can share, else what
     * is wrong with it. Fast path: text all ASCII and as many bytes between the quotes as characters, so
     * every byte is one ASCII character, unescaped; else the text is checked for unpaired surrogates and
     * its raw bytes for invalid UTF-8 that Jackson decoded.
     */
    private static String identityError(JsonParser parser, byte[] value, String field, String text) {
        int length = text.length();
        int i = 0;
        while (i < length && text.charAt(i) < 0x80) {
            i++;
        }
        long quote = parser.currentTokenLocation().getByteOffset();
        long end = parser.currentLocation().getByteOffset();
        if (i == length && end - quote - 2 == length) {
            return null;
        }
        // The bytes first: a surrogate Jackson decoded from them (ED A0 80) is reported as such.
        if (quote < 0 || end > value.length) {
            return "'" + field + "' cannot be located in the value's bytes";
        }
        int invalid = Utf8Validity.invalidOffset(value, (int) quote + 1, (int) end - 1);
        if (invalid >= 0) {
            return Utf8Validity.describeInvalid("'" + field + "'", value, invalid);
        }
        int unpaired = DedupKey.unpairedSurrogate(text);
        if (unpaired >= 0) {
            return "'" + field + "' has an unpaired UTF-16 surrogate " + String.format("\\u%04x", (int) text.charAt(unpaired)) + " at index "
                    + unpaired;
        }
        return null;
    }

    /**
     * The top-level field (quoted) whose name or value holds byte {@code offset}, or null if the value is not
     * an object that far. For a record already known to be malformed only: it parses the value again.
     */
    private String topLevelFieldAt(byte[] value, int offset) {
        String field = null;
        try (JsonParser parser = factoryFor(value).createParser(value)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                if (parser.currentTokenLocation().getByteOffset() > offset) {
                    return field;
                }
                field = "'" + parser.currentName() + "'";
                parser.nextToken();
                parser.skipChildren();
            }
            return token == JsonToken.END_OBJECT && parser.currentTokenLocation().getByteOffset() > offset ? field : null;
        } catch (JsonProcessingException e) {
            // Where Jackson stops at invalid UTF-8 itself: in the field read last.
            return e.getLocation() != null && e.getLocation().getByteOffset() >= offset ? field : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
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
        return ImpressionAssembler.malformed(raw, error);
    }
}
