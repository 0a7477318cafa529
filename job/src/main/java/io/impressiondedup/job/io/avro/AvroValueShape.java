package io.impressiondedup.job.io.avro;

import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;

/**
 * A writer schema compiled for decoding: its type and, for the composite ones, the shapes of what they hold, in
 * arrays rather than Avro's lists and maps, so that skipping a value walks plain fields. Recursive schemas (a
 * record holding itself through a union) compile to a cyclic graph of shapes.
 */
final class AvroValueShape {

    final Schema schema;
    final Schema.Type type;
    /** RECORD: its fields' shapes in writer order; UNION: its branches; ARRAY: the items'; MAP: the values'. */
    AvroValueShape[] children;
    /** RECORD: its fields' names, in writer order. */
    String[] fieldNames;
    /** ENUM: its symbols; FIXED: null. */
    String[] symbols;
    /** FIXED: its size in bytes. */
    int fixedSize;
    /**
     * Whether every value of this shape is encoded in zero bytes: a null, a fixed of size 0, a record of such
     * fields only. Every other shape takes at least one byte a value (a varint, a length, a union index, an
     * array's closing count), which is what bounds skipping by the record's size: a block of zero-size items is
     * skipped whole, never item by item ({@link AvroBinaryCursor}).
     */
    boolean zeroSize;

    private AvroValueShape(Schema schema) {
        this.schema = schema;
        this.type = schema.getType();
    }

    static AvroValueShape of(Schema schema) {
        Map<Schema, AvroValueShape> compiled = new IdentityHashMap<>();
        AvroValueShape shape = compile(schema, compiled);
        markZeroSize(compiled.values());
        return shape;
    }

    /**
     * The greatest fixpoint: a record starts as zero-size and stops being so once a field is not, until nothing
     * changes, so that a record reaching itself only through zero-size fields is zero-size too (it can hold no byte).
     */
    private static void markZeroSize(Collection<AvroValueShape> shapes) {
        for (AvroValueShape shape : shapes) {
            shape.zeroSize = shape.type == Schema.Type.NULL || shape.type == Schema.Type.RECORD
                    || (shape.type == Schema.Type.FIXED && shape.fixedSize == 0);
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (AvroValueShape shape : shapes) {
                if (shape.zeroSize && shape.type == Schema.Type.RECORD) {
                    for (AvroValueShape field : shape.children) {
                        if (!field.zeroSize) {
                            shape.zeroSize = false;
                            changed = true;
                            break;
                        }
                    }
                }
            }
        }
    }

    private static AvroValueShape compile(Schema schema, Map<Schema, AvroValueShape> compiled) {
        AvroValueShape known = compiled.get(schema);
        if (known != null) {
            return known;
        }
        AvroValueShape shape = new AvroValueShape(schema);
        compiled.put(schema, shape);
        switch (shape.type) {
            case RECORD:
                List<Schema.Field> fields = schema.getFields();
                shape.children = new AvroValueShape[fields.size()];
                shape.fieldNames = new String[fields.size()];
                for (int i = 0; i < fields.size(); i++) {
                    shape.fieldNames[i] = fields.get(i).name();
                    shape.children[i] = compile(fields.get(i).schema(), compiled);
                }
                break;
            case UNION:
                List<Schema> branches = schema.getTypes();
                shape.children = new AvroValueShape[branches.size()];
                for (int i = 0; i < branches.size(); i++) {
                    shape.children[i] = compile(branches.get(i), compiled);
                }
                break;
            case ARRAY:
                shape.children = new AvroValueShape[] {compile(schema.getElementType(), compiled)};
                break;
            case MAP:
                shape.children = new AvroValueShape[] {compile(schema.getValueType(), compiled)};
                break;
            case ENUM:
                shape.symbols = schema.getEnumSymbols().toArray(new String[0]);
                break;
            case FIXED:
                shape.fixedSize = schema.getFixedSize();
                break;
            default:
                break;
        }
        return shape;
    }

    /** The index of the record field {@code name}, or -1. */
    int fieldIndex(String name) {
        for (int i = 0; i < fieldNames.length; i++) {
            if (fieldNames[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The logical type's name, or null. */
    String logicalTypeName() {
        LogicalType logical = schema.getLogicalType();
        return logical == null ? null : logical.getName();
    }

    /** "a string", "a record 'Imp'", "a long (timestamp-micros)": for messages. */
    String describe() {
        String name = type.getName();
        String article = "aeiou".indexOf(name.charAt(0)) >= 0 ? "an " : "a ";
        String described = article + name;
        if (type == Schema.Type.RECORD || type == Schema.Type.ENUM || type == Schema.Type.FIXED) {
            described += " '" + schema.getName() + "'";
        }
        String logical = logicalTypeName();
        return logical == null ? described : described + " (" + logical + ")";
    }
}
