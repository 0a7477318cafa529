package io.impressiondedup.testdata;

/**
 * What the generator knows about each record, and so what the job must do with it.
 *
 * <ul>
 *   <li>{@link #UNIQUE}: the first impression of its (request, ad), a delayed client's included: must
 *       reach the output, unless dropped as a false positive.
 *   <li>{@link #DUPLICATE_WITHIN_RETENTION}: a copy stamped at most the retention after its original
 *       (or with the same timestamp): must never reach the output next to it (zero false negatives).
 *   <li>{@link #DUPLICATE_BEYOND_RETENTION}: a copy stamped more than retention + one bucket + 6 h
 *       after its original, whose bucket lies outside the range the job checks it against: a new
 *       impression as far as the job is concerned, and expected in the output.
 *   <li>{@link #LATE}: stamped more than the allowed lateness (and retention + 2 buckets) behind the
 *       stream, with an identity of its own: dead letter with reason {@code late} once the job has a
 *       watermark (any impression of every partition makes one late enough); the job judges lateness
 *       from its watermark, so before it has one the record passes as new.
 *   <li>{@link #MALFORMED}: not a valid impression (or oversized): dead letter with reason {@code
 *       malformed} or {@code oversized}.
 *   <li>{@link #FUTURE}: dated far beyond processing time: dead letter with reason {@code future-timestamp}.
 * </ul>
 */
public enum RecordClass {
    UNIQUE("unique"),
    DUPLICATE_WITHIN_RETENTION("duplicate-within-retention"),
    DUPLICATE_BEYOND_RETENTION("duplicate-beyond-retention"),
    LATE("late"),
    MALFORMED("malformed"),
    FUTURE("future");

    private final String label;

    RecordClass(String label) {
        this.label = label;
    }

    /** The name used in ground-truth files and reports. */
    public String label() {
        return label;
    }

    /** Whether the job must send records of this class to the dead-letter topic. */
    public boolean isDeadLetter() {
        return this == LATE || this == MALFORMED || this == FUTURE;
    }

    /** Whether a record of this class opens its own identity group (expected once in the output). */
    public boolean opensGroup() {
        return this == UNIQUE || this == DUPLICATE_BEYOND_RETENTION;
    }

    public static RecordClass fromLabel(String label) {
        for (RecordClass c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("Unknown record class '" + label + "'");
    }
}
