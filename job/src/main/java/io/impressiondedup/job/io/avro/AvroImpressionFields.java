package io.impressiondedup.job.io.avro;

import io.impressiondedup.job.io.avro.AvroFieldPlan.Node;
import io.impressiondedup.job.io.avro.AvroFieldPlan.RecordPlan;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * Reads the key fields and the event time of an impression from a Kafka value holding one Avro record in binary
 * encoding, written with the configured schema; everything else in the record is skipped by its shape, never
 * built, and passes through in the original bytes.
 *
 * <p>Per value, {@link #read} returns null and the fields are then in {@link #keyText}, {@link #eventTimeKind},
 * {@link #eventTimeMillis} and {@link #eventTimeText}; or it returns what is wrong, naming the field (its path) or
 * the record (truncated, trailing bytes, wrong magic byte, unexpected schema id). It never throws for a value and
 * never allocates more than the value's size, whatever lengths the value declares ({@link AvroBinaryCursor}).
 *
 * <p>What it decides, and what it leaves to the caller (the format-independent rules applied to JSON too):
 *
 * <ul>
 *   <li>A key value is a string's text, an int's or long's decimal text (so ad id 7 and "7" are one identity, as
 *       in JSON), or an enum's symbol. An empty string is an error naming the field; so is a string that is not
 *       valid UTF-8 (RFC 3629, as Java's decoder checks it: overlong forms and encoded surrogates included), which
 *       would otherwise be replaced on the way to the digest and share an identity with another string.
 *   <li>A field behind a {@code null} union branch, or under a record that is, is missing: {@link #keyText} is null,
 *       the event time {@link EventTimeKind#MISSING}; the caller words the missing-field dead letter.
 *   <li>An event time is epoch milliseconds from a long or int ({@code timestamp-micros} converted, rounding
 *       down), or the text of a string: its ISO-8601 syntax, its range and the future skew are the caller's
 *       event-time rules.
 * </ul>
 *
 * One instance per source reader; not thread-safe (it reuses its decoder state).
 */
public final class AvroImpressionFields {

    /** How the event time was given. */
    public enum EventTimeKind {
        /** The field is missing (a null union branch). */
        MISSING,
        /** Epoch milliseconds, in {@link #eventTimeMillis}. */
        EPOCH_MILLIS,
        /** A string, in {@link #eventTimeText}, to be read as an ISO-8601 instant. */
        TEXT
    }

    private final AvroWirePrefix prefix;
    private final OptionalInt expectedSchemaId;
    private final RecordPlan plan;
    private final String[] keyPointers;
    private final String timestampPointer;
    private final AvroBinaryCursor cursor = new AvroBinaryCursor();
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    private final String[] keys;
    private EventTimeKind eventTimeKind = EventTimeKind.MISSING;
    private long eventTimeMillis;
    private String eventTimeText;
    /** The path of the field being read or skipped, for an error's message. */
    private String at;

    /**
     * @param schemaText the writer schema, the text of an {@code .avsc} file: every value is read as written with it
     * @param prefix what precedes the record in a value
     * @param expectedSchemaId with {@link AvroWirePrefix#CONFLUENT}, the schema id a value must carry, if any
     * @param keyPaths the key fields, each a path of field names from the top-level record ({@code ["imp", "requestId"]})
     * @param timestampPath the event time field's path
     * @throws IllegalArgumentException naming the path, if the schema is no valid Avro record schema or cannot hold
     *     what a path asks for (no such field, a key that can never be a string or an integer, an event time that is
     *     no instant)
     */
    public AvroImpressionFields(String schemaText, AvroWirePrefix prefix, OptionalInt expectedSchemaId, List<List<String>> keyPaths,
            List<String> timestampPath) {
        this(parse(schemaText), prefix, expectedSchemaId, keyPaths, timestampPath);
    }

    /** As {@link #AvroImpressionFields(String, AvroWirePrefix, OptionalInt, List, List)}, with the schema parsed already. */
    public AvroImpressionFields(Schema schema, AvroWirePrefix prefix, OptionalInt expectedSchemaId, List<List<String>> keyPaths,
            List<String> timestampPath) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.expectedSchemaId = Objects.requireNonNull(expectedSchemaId, "expectedSchemaId");
        if (expectedSchemaId.isPresent() && prefix != AvroWirePrefix.CONFLUENT) {
            throw new IllegalArgumentException("an expected schema id (" + expectedSchemaId.getAsInt()
                    + ") needs the confluent wire prefix, which carries it, but the prefix is " + prefix);
        }
        if (keyPaths.isEmpty()) {
            throw new IllegalArgumentException("at least one key field path is needed");
        }
        this.plan = AvroFieldPlan.build(AvroValueShape.of(schema), keyPaths, timestampPath);
        this.keys = new String[keyPaths.size()];
        this.keyPointers = keyPaths.stream().map(AvroFieldPlan::pointer).toArray(String[]::new);
        this.timestampPointer = AvroFieldPlan.pointer(timestampPath);
    }

    /** The schema in {@code schemaText}; an invalid one is an {@link IllegalArgumentException} saying why. */
    public static Schema parse(String schemaText) {
        try {
            return new Schema.Parser().parse(schemaText);
        } catch (SchemaParseException | NullPointerException e) {
            throw new IllegalArgumentException("the Avro schema is not valid: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Jackson's parse errors (not JSON at all) come through as Avro's or as their own.
            throw new IllegalArgumentException("the Avro schema is not valid: " + e, e);
        }
    }

    /**
     * Reads {@code value}: null if it is a record of the schema (its fields then in the accessors), else what is
     * wrong with it, naming the field by its path or the record. Never throws.
     */
    public String read(byte[] value) {
        clear();
        if (value == null) {
            return "null value (tombstone)";
        }
        if (value.length == 0) {
            return "empty value";
        }
        String prefixError = prefix.check(value);
        if (prefixError != null) {
            return prefixError;
        }
        if (expectedSchemaId.isPresent() && prefix.schemaId(value) != expectedSchemaId.getAsInt()) {
            return "unexpected schema id " + prefix.schemaId(value) + " in the confluent wire prefix, expected " + expectedSchemaId.getAsInt();
        }
        return readRecordAt(value, prefix.length());
    }

    /**
     * Reads the record that begins at byte {@code from} of {@code value}, after a prefix the caller read (a schema
     * registry's id, which chose this reader's writer schema): null if it is a record of the schema, else what is wrong.
     * Never throws.
     */
    public String readRecordAt(byte[] value, int from) {
        clear();
        cursor.reset(value, from, value.length);
        at = null;
        try {
            readRecord(plan, 1);
        } catch (MalformedAvroException e) {
            return at == null ? e.getMessage() : "'" + at + "': " + e.getMessage();
        } catch (RuntimeException e) {
            // Not expected: every bound is checked. Still one bad record must not fail the job.
            return (at == null ? "" : "'" + at + "': ") + "unreadable: " + e;
        }
        if (cursor.remaining() > 0) {
            return cursor.remaining() + " trailing bytes after the record, at byte " + cursor.position() + " of " + value.length;
        }
        return null;
    }

    private void clear() {
        for (int i = 0; i < keys.length; i++) {
            keys[i] = null;
        }
        eventTimeKind = EventTimeKind.MISSING;
        eventTimeText = null;
        eventTimeMillis = 0;
    }

    /** The text of key {@code index} of the last value read, or null if that field is missing. */
    public String keyText(int index) {
        return keys[index];
    }

    public int keyCount() {
        return keys.length;
    }

    /** Key {@code index}'s path as an RFC 6901 JSON Pointer ({@code /imp/requestId}): for the missing-field message. */
    public String keyPointer(int index) {
        return keyPointers[index];
    }

    public String timestampPointer() {
        return timestampPointer;
    }

    /** The values and blocks the last {@link #read} skipped: its work, which the record's size bounds. */
    long skipStepsOfLastRead() {
        return cursor.steps();
    }

    public EventTimeKind eventTimeKind() {
        return eventTimeKind;
    }

    /** The event time in epoch milliseconds, if {@link #eventTimeKind} is {@link EventTimeKind#EPOCH_MILLIS}. */
    public long eventTimeMillis() {
        return eventTimeMillis;
    }

    /** The event time's text, if {@link #eventTimeKind} is {@link EventTimeKind#TEXT}. */
    public String eventTimeText() {
        return eventTimeText;
    }

    private void readRecord(RecordPlan record, int depth) throws MalformedAvroException {
        cursor.checkDepth(depth);
        AvroValueShape[] fields = record.shape.children;
        for (int i = 0; i < fields.length; i++) {
            at = record.pointers[i];
            Node node = record.needed[i];
            if (node == null) {
                cursor.skip(fields[i], depth + 1);
            } else {
                readNeeded(node, depth + 1);
            }
        }
    }

    private void readNeeded(Node node, int depth) throws MalformedAvroException {
        AvroValueShape shape = node.shape;
        int branch = 0;
        if (shape.type == Schema.Type.UNION) {
            branch = cursor.readIndex(shape.children.length, "a union branch");
            shape = shape.children[branch];
        }
        if (shape.type == Schema.Type.NULL) {
            return; // missing, and so is everything under it
        }
        if (node.records != null) {
            RecordPlan record = node.records[branch];
            if (record == null) {
                throw new MalformedAvroException("is " + shape.describe() + " in this record, not a record with the fields below it");
            }
            readRecord(record, depth);
            return;
        }
        readLeaf(node, shape);
    }

    private void readLeaf(Node node, AvroValueShape shape) throws MalformedAvroException {
        String text;
        long number = 0;
        switch (shape.type) {
            case STRING:
                text = readString();
                break;
            case INT:
                number = cursor.readInt();
                text = null;
                break;
            case LONG:
                number = cursor.readLong();
                text = null;
                break;
            case ENUM:
                text = shape.symbols[cursor.readIndex(shape.symbols.length, "an enum symbol")];
                break;
            default:
                cursor.skip(shape, 0);
                text = null;
                break;
        }
        if (node.keys.length > 0) {
            if (!AvroFieldPlan.canBeKey(shape)) {
                throw new MalformedAvroException("must be a non-empty string or an integer, but is " + shape.describe());
            }
            String key = text != null ? text : Long.toString(number);
            if (key.isEmpty()) {
                throw new MalformedAvroException("must be a non-empty string, but is empty");
            }
            for (int k : node.keys) {
                keys[k] = key;
            }
        }
        if (node.timestamp) {
            String error = AvroFieldPlan.timestampError(shape);
            if (error != null) {
                throw new MalformedAvroException(error);
            }
            if (shape.type == Schema.Type.STRING) {
                eventTimeKind = EventTimeKind.TEXT;
                eventTimeText = text;
            } else {
                eventTimeKind = EventTimeKind.EPOCH_MILLIS;
                eventTimeMillis = AvroFieldPlan.timeUnit(shape) == AvroFieldPlan.TimeUnit.MICROS ? Math.floorDiv(number, 1000L) : number;
            }
        }
    }

    /** A string's text: ASCII copied as is, anything else decoded strictly as UTF-8. */
    private String readString() throws MalformedAvroException {
        int length = cursor.readLength("a string");
        byte[] buf = cursor.buffer();
        int from = cursor.position();
        cursor.skipBytes(length);
        int i = from;
        int to = from + length;
        while (i < to && buf[i] >= 0) {
            i++;
        }
        if (i == to) {
            return new String(buf, from, length, StandardCharsets.ISO_8859_1);
        }
        try {
            CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(buf, from, length));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new MalformedAvroException("is not valid UTF-8 (RFC 3629): the string at byte " + from + " has an invalid sequence");
        }
    }
}
