package io.impressiondedup.operators.stats;

/**
 * What the dedup operator decided about one impression, for the reconciliation rows ({@link HourlyStats}).
 * A duplicate arriving past the allowed lateness is a {@link #DUPLICATE} (as in the job's account); {@link
 * #LATE} is a late record that is no copy of anything live, whatever {@code --late-policy} then does with it.
 *
 * <p><b>Binary format:</b> the ordinal is serialized; append new outcomes, never reorder.
 */
public enum StatsOutcome {
    UNIQUE,
    DUPLICATE,
    LATE
}
