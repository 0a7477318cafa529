package io.impressiondedup.operators.stats;

import io.impressiondedup.operators.model.DeadLetterReason;
import java.util.Arrays;

/**
 * The counts of one reconciliation row: unique, duplicates and late (the dedup operator's outcomes) and
 * dead-lettered by reason (the router's: malformed, oversized, future-timestamp). {@code input} is their
 * sum by construction, so {@code input = unique + duplicates + late + deadLettered} holds in every row.
 * Late records are counted as {@code late}, never as dead-lettered, whatever {@code --late-policy} does
 * with them, as in the job's account. Mutable: the pre-aggregator and the combiner add into one instance.
 */
public final class StatsCounts {

    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    private long unique;
    private long duplicates;
    private long late;
    /** By {@link DeadLetterReason} ordinal. */
    private final long[] deadLettered;

    public StatsCounts() {
        this(0, 0, 0, new long[REASONS.length]);
    }

    StatsCounts(long unique, long duplicates, long late, long[] deadLettered) {
        this.unique = unique;
        this.duplicates = duplicates;
        this.late = late;
        this.deadLettered = deadLettered.length == REASONS.length ? deadLettered : Arrays.copyOf(deadLettered, REASONS.length);
    }

    public void add(StatsOutcome outcome) {
        switch (outcome) {
            case UNIQUE -> unique++;
            case DUPLICATE -> duplicates++;
            case LATE -> late++;
            default -> throw new IllegalArgumentException("Unknown outcome " + outcome);
        }
    }

    public void addDeadLetter(DeadLetterReason reason) {
        deadLettered[reason.ordinal()]++;
    }

    /** Adds {@code other}'s counts to these. */
    public void addAll(StatsCounts other) {
        unique += other.unique;
        duplicates += other.duplicates;
        late += other.late;
        for (int i = 0; i < deadLettered.length; i++) {
            deadLettered[i] += other.deadLettered[i];
        }
    }

    public long input() {
        return unique + duplicates + late + deadLettered();
    }

    public long unique() {
        return unique;
    }

    public long duplicates() {
        return duplicates;
    }

    public long late() {
        return late;
    }

    public long deadLettered() {
        long sum = 0;
        for (long count : deadLettered) {
            sum += count;
        }
        return sum;
    }

    public long deadLettered(DeadLetterReason reason) {
        return deadLettered[reason.ordinal()];
    }

    long[] deadLetteredByOrdinal() {
        return deadLettered;
    }

    public StatsCounts copy() {
        return new StatsCounts(unique, duplicates, late, deadLettered.clone());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatsCounts other && unique == other.unique && duplicates == other.duplicates && late == other.late
                && Arrays.equals(deadLettered, other.deadLettered);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * Long.hashCode(unique) + Long.hashCode(duplicates)) + Long.hashCode(late)) + Arrays.hashCode(deadLettered);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder().append("input ").append(input()).append(" = unique ").append(unique)
                .append(" + duplicates ").append(duplicates).append(" + late ").append(late).append(" + dead-lettered ")
                .append(deadLettered());
        for (DeadLetterReason reason : REASONS) {
            if (deadLettered[reason.ordinal()] != 0) {
                s.append(' ').append(reason.headerValue()).append('=').append(deadLettered[reason.ordinal()]);
            }
        }
        return s.toString();
    }
}
