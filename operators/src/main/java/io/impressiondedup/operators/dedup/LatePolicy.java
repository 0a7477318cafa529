package io.impressiondedup.operators.dedup;

/**
 * What the dedup operator does with a late record that is not a copy of an impression in a live
 * bucket (see {@code TimeBuckets}, rules 3 and 5). Whatever the policy, the record is counted as
 * {@code late}, so that input = unique + duplicates + late + dead-lettered holds exactly.
 */
public enum LatePolicy {
    /** To the dead-letter topic with reason {@code late} (the default: nothing is lost, nothing double counted). */
    DEAD_LETTER("dead-letter"),
    /**
     * Forwarded to the output with the header {@code dedup.late: true}, and remembered where later
     * copies look ({@code TimeBuckets#lateInsertBucket}). It may be a copy of an impression whose
     * bucket was already dropped: billing decides from the header.
     */
    EMIT("emit"),
    /** Dropped and counted only. */
    DROP("drop");

    private final String optionValue;

    LatePolicy(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The value of {@code --late-policy}. */
    public String optionValue() {
        return optionValue;
    }

    /** The option value: Flink's configuration parses enums by their {@code toString()}. */
    @Override
    public String toString() {
        return optionValue;
    }

    public static LatePolicy fromOptionValue(String value) {
        for (LatePolicy policy : values()) {
            if (policy.optionValue.equals(value)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("Unknown late policy '" + value + "': expected dead-letter, emit or drop");
    }
}
