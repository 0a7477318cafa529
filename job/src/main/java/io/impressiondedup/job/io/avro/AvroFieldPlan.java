package io.impressiondedup.job.io.avro;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Where the needed fields are in the writer schema, and what to do at each: the key fields and the event time
 * as paths of field names, merged into one tree so that a record on several paths is read once, and every
 * field of it on no path is skipped by its shape. Built once, at start: a path the schema cannot satisfy is a
 * configuration error naming the path, never a dead letter per record.
 *
 * <p>A path descends through records, and through unions of them: a {@code null} branch means the field is
 * missing; a record branch must have the next field; a branch of another type is an error of that record. A key
 * field must be able to hold a string, an int or a long (or an enum: its symbol is the text) in some branch; the
 * event time a long or int of epoch milliseconds ({@code timestamp-millis} or none; {@code timestamp-micros} is
 * converted) or a string (an ISO-8601 instant, checked by the event-time rules like JSON's).
 */
final class AvroFieldPlan {

    /** Needed fields of one record shape, by the record's field index; null where the field is skipped. */
    static final class RecordPlan {
        final AvroValueShape shape;
        final Node[] needed;
        /** Each field's path, for messages about a field skipped or read. */
        final String[] pointers;

        RecordPlan(AvroValueShape shape, String pointerPrefix) {
            this.shape = shape;
            this.needed = new Node[shape.children.length];
            this.pointers = new String[shape.children.length];
            for (int i = 0; i < pointers.length; i++) {
                pointers[i] = pointerPrefix + "/" + escape(shape.fieldNames[i]);
            }
        }
    }

    /** One needed field: a leaf (read for keys and/or the event time) or a record (or union of them) to descend into. */
    static final class Node {
        final String pointer;
        final AvroValueShape shape;
        /** The key indexes this field gives (a field may be two keys, or a key and the event time). */
        int[] keys = new int[0];
        boolean timestamp;
        /** For an inner node: per union branch (index 0 for a plain record), the record's plan, or null if the branch is no record. */
        RecordPlan[] records;

        Node(String pointer, AvroValueShape shape) {
            this.pointer = pointer;
            this.shape = shape;
        }
    }

    /** How a leaf's value is turned into an event time. */
    enum TimeUnit { MILLIS, MICROS }

    private AvroFieldPlan() {
    }

    /** The plan for {@code keyPaths} and {@code timestampPath} in the record schema {@code root}. */
    static RecordPlan build(AvroValueShape root, List<List<String>> keyPaths, List<String> timestampPath) {
        if (root.type != Schema.Type.RECORD) {
            throw new IllegalArgumentException("the Avro schema must be a record, but is " + root.describe());
        }
        PathTree tree = new PathTree("");
        for (int k = 0; k < keyPaths.size(); k++) {
            PathTree leaf = tree.add(keyPaths.get(k));
            leaf.keys.add(k);
        }
        tree.add(timestampPath).timestamp = true;
        return recordPlan(root, tree, "");
    }

    private static RecordPlan recordPlan(AvroValueShape record, PathTree tree, String prefix) {
        RecordPlan plan = new RecordPlan(record, prefix);
        for (PathTree child : tree.children.values()) {
            int index = record.fieldIndex(child.name);
            if (index < 0) {
                throw new IllegalArgumentException("the field path " + child.examplePath + " is not in the Avro schema: " + record.describe()
                        + (prefix.isEmpty() ? "" : " at " + prefix) + " has no field '" + child.name + "' (it has " + String.join(", ",
                        record.fieldNames) + ")");
            }
            plan.needed[index] = node(record.children[index], child, plan.pointers[index]);
        }
        return plan;
    }

    private static Node node(AvroValueShape shape, PathTree tree, String pointer) {
        Node node = new Node(pointer, shape);
        AvroValueShape[] branches = shape.type == Schema.Type.UNION ? shape.children : new AvroValueShape[] {shape};
        if (!tree.children.isEmpty()) {
            if (!tree.keys.isEmpty() || tree.timestamp) {
                throw new IllegalArgumentException("the field path " + pointer + " is read as a value and also has paths below it ("
                        + tree.children.values().iterator().next().examplePath + ")");
            }
            node.records = new RecordPlan[branches.length];
            boolean anyRecord = false;
            for (int b = 0; b < branches.length; b++) {
                if (branches[b].type == Schema.Type.RECORD) {
                    node.records[b] = recordPlan(branches[b], tree, pointer);
                    anyRecord = true;
                }
            }
            if (!anyRecord) {
                throw new IllegalArgumentException("the field path " + tree.children.values().iterator().next().examplePath
                        + " is not in the Avro schema: " + pointer + " is " + shape.describe() + ", not a record");
            }
            return node;
        }
        node.keys = tree.keys.stream().mapToInt(Integer::intValue).toArray();
        node.timestamp = tree.timestamp;
        if (node.keys.length > 0 && !anyBranch(branches, AvroFieldPlan::canBeKey)) {
            throw new IllegalArgumentException("the key field " + pointer + " can never be a string or an integer: it is " + shape.describe());
        }
        if (node.timestamp && !anyBranch(branches, b -> timestampError(b) == null)) {
            AvroValueShape first = branches[0].type == Schema.Type.NULL && branches.length > 1 ? branches[1] : branches[0];
            throw new IllegalArgumentException("the event time field " + pointer + " " + (shape.type == Schema.Type.UNION
                    ? "has no branch of epoch milliseconds (a long or int, timestamp-millis or timestamp-micros) or of an ISO-8601 string: "
                    + shape.describe() + " of " + describeAll(branches) : timestampError(first)));
        }
        return node;
    }

    /** Whether a value of {@code shape} can be a key: string, int, long, or enum (its symbol). */
    static boolean canBeKey(AvroValueShape shape) {
        switch (shape.type) {
            case STRING:
            case INT:
            case LONG:
            case ENUM:
                return true;
            default:
                return false;
        }
    }

    /** Null if a value of {@code shape} can be an event time, else why not (to follow the field's path). */
    static String timestampError(AvroValueShape shape) {
        String logical = shape.logicalTypeName();
        switch (shape.type) {
            case STRING:
                return null;
            case LONG:
                if (logical == null || logical.equals("timestamp-millis") || logical.equals("timestamp-micros")) {
                    return null;
                }
                return "must be epoch milliseconds or microseconds (timestamp-millis, timestamp-micros), but is " + shape.describe()
                        + ": a time without a zone or of day is no instant";
            case INT:
                if (logical == null) {
                    return null;
                }
                return "must be epoch milliseconds, but is " + shape.describe() + ": not an instant";
            default:
                return "must be epoch milliseconds (a long) or an ISO-8601 instant (a string), but is " + shape.describe();
        }
    }

    /** The unit of an event time of {@code shape} (a long or int). */
    static TimeUnit timeUnit(AvroValueShape shape) {
        return "timestamp-micros".equals(shape.logicalTypeName()) ? TimeUnit.MICROS : TimeUnit.MILLIS;
    }

    private static boolean anyBranch(AvroValueShape[] branches, java.util.function.Predicate<AvroValueShape> test) {
        for (AvroValueShape branch : branches) {
            if (branch.type != Schema.Type.NULL && test.test(branch)) {
                return true;
            }
        }
        return false;
    }

    private static String describeAll(AvroValueShape[] branches) {
        List<String> described = new ArrayList<>();
        for (AvroValueShape branch : branches) {
            described.add(branch.describe());
        }
        return String.join(", ", described);
    }

    /** A path's tokens as an RFC 6901 JSON Pointer, for messages. */
    static String pointer(List<String> tokens) {
        StringBuilder pointer = new StringBuilder();
        for (String token : tokens) {
            pointer.append('/').append(escape(token));
        }
        return pointer.toString();
    }

    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    /** The paths as a tree of field names. */
    private static final class PathTree {
        final String name;
        /** The first full path through this node, for messages. */
        String examplePath;
        final Map<String, PathTree> children = new LinkedHashMap<>();
        final List<Integer> keys = new ArrayList<>();
        boolean timestamp;

        PathTree(String name) {
            this.name = name;
        }

        PathTree add(List<String> path) {
            if (path.isEmpty()) {
                throw new IllegalArgumentException("a field path must name at least one field, but is empty");
            }
            String full = pointer(path);
            PathTree node = this;
            for (String token : path) {
                node = node.children.computeIfAbsent(token, PathTree::new);
                if (node.examplePath == null) {
                    node.examplePath = full;
                }
            }
            return node;
        }
    }
}
