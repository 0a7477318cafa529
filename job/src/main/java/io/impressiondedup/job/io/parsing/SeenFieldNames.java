package io.impressiondedup.job.io.parsing;

import java.util.Arrays;
import java.util.HashSet;

/**
 * The field names seen so far in one object of the record being read, to find a name given twice. Records of
 * one stream nearly always have the same fields in the same order, and Jackson returns a name as the same
 * canonical string each time (from its symbol table): so a name is first compared with the one at its position
 * in the last record (one reference comparison, no hashing, nothing allocated), and only a record that departs
 * from that order goes through a hash set, from the first name that differs. {@link #order} holds the names of
 * the current record so far, all distinct, followed by the rest of an earlier record's, up to {@link #known}: a
 * sequence of distinct names throughout. Each {@link FieldPathTree} node holds one; not thread-safe.
 */
final class SeenFieldNames {

    /** A set that held more names than this is dropped rather than cleared (clearing costs its capacity). */
    private static final int MAX_RETAINED_NAMES = 512;

    private String[] order = new String[32];
    private int known;
    private int position;
    /** Whether the current record has departed from {@link #order}: its names are then in {@link #hashed}. */
    private boolean hashing;
    private HashSet<String> hashed = new HashSet<>();

    /** Forgets the names of the record before, keeping their order to compare the next record's with. */
    void startRecord() {
        position = 0;
        if (hashing) {
            hashing = false;
            if (hashed.size() > MAX_RETAINED_NAMES) {
                hashed = new HashSet<>();
                order = new String[32];
                known = 0;
            } else {
                hashed.clear();
            }
        }
    }

    /** Adds the next name of the record; false if the record has it already. */
    boolean add(String name) {
        int p = position;
        if (!hashing) {
            if (p < known && order[p] == name) {
                position = p + 1;
                return true;
            }
            hashing = true;
            for (int i = 0; i < p; i++) {
                hashed.add(order[i]);
            }
        }
        if (!hashed.add(name)) {
            return false;
        }
        if (p == order.length) {
            order = Arrays.copyOf(order, 2 * p);
        }
        order[p] = name;
        known = p + 1;
        position = p + 1;
        return true;
    }
}
