package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.FieldPath;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The configured field paths as a tree of member names from the top-level object, walked alongside the
 * parser so that it descends only into objects a configured path goes through. Each node is one object on a
 * configured path or one configured field ({@link #target} >= 0), never both: configured paths must not
 * overlap, since a record cannot hold both a field and an object at one path.
 */
final class FieldPathTree {

    /** The member names from the top-level object to this node (none for the top-level object). */
    final List<String> tokens;
    /** How messages name it: a field's configured path; an object's JSON Pointer. */
    final String label;
    /** The configured field this node is (its index: key fields, then the event time), or -1 for an object. */
    final int target;
    /** For an object: the label of the first configured field under it, for messages. */
    final String firstField;
    /** The names of this object in the record being read, to find one given twice. */
    final SeenFieldNames names = new SeenFieldNames();
    private String[] childNames = new String[0];
    private FieldPathTree[] children = new FieldPathTree[0];

    private FieldPathTree(List<String> tokens, String label, int target, String firstField) {
        this.tokens = tokens;
        this.label = label;
        this.target = target;
        this.firstField = firstField;
    }

    /** The tree of {@code fields} (field i: target i), rooted at the top-level object; refused if two overlap. */
    static FieldPathTree of(List<FieldPath> fields) {
        FieldPathTree root = new FieldPathTree(List.of(), "", -1, null);
        for (int target = 0; target < fields.size(); target++) {
            FieldPath field = fields.get(target);
            List<String> tokens = field.tokens();
            FieldPathTree node = root;
            for (int depth = 0; depth < tokens.size(); depth++) {
                boolean last = depth == tokens.size() - 1;
                FieldPathTree child = node.child(tokens.get(depth));
                if (child == null) {
                    List<String> path = tokens.subList(0, depth + 1);
                    child = last ? new FieldPathTree(path, field.toString(), target, null)
                            : new FieldPathTree(path, FieldPath.pointer(path), -1, field.toString());
                    node.add(tokens.get(depth), child);
                } else if (last || child.target >= 0) {
                    throw new IllegalArgumentException("the field paths '" + field + "' and '" + child.firstFieldOrLabel()
                            + "' overlap: a record cannot hold both");
                }
                node = child;
            }
        }
        return root;
    }

    private String firstFieldOrLabel() {
        return target >= 0 ? label : firstField;
    }

    private void add(String name, FieldPathTree child) {
        int n = childNames.length;
        childNames = Arrays.copyOf(childNames, n + 1);
        children = Arrays.copyOf(children, n + 1);
        childNames[n] = name;
        children[n] = child;
    }

    /** The child named {@code name}, or null: one comparison per configured child (a handful). */
    FieldPathTree child(String name) {
        String[] names = childNames;
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return children[i];
            }
        }
        return null;
    }

    /** How a message names the member {@code name} of this object: as it is at the top level, else as a JSON Pointer. */
    String nameOf(String name) {
        if (tokens.isEmpty()) {
            return name;
        }
        List<String> path = new ArrayList<>(tokens);
        path.add(name);
        return FieldPath.pointer(path);
    }
}
