package io.impressiondedup.job;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.model.DeadLetterReason;
import java.util.Locale;
import java.util.Map;

/**
 * The job-level account every record ends up in: {@code input = unique + duplicates + late +
 * dead-lettered} ({@code late duplicates}, copies that arrived past the allowed lateness and were
 * still found, are a part of {@code duplicates}, not a fifth term), from the accumulators the router and the dedup operator keep (live through the
 * REST API while the job runs, final in the job result).
 */
public final class Accounting {

    public static final String INPUT = "input";
    public static final String DEAD_LETTERED = "dead-lettered";
    /** Per reason: {@code dead-lettered.malformed}, ... (late records are counted by the dedup operator). */
    public static final String DEAD_LETTERED_PREFIX = "dead-lettered.";

    private Accounting() {}

    public static String deadLetteredAccumulator(DeadLetterReason reason) {
        return DEAD_LETTERED_PREFIX + reason.headerValue();
    }

    /** Reads a counter from accumulator results (0 if absent). */
    public static long count(Map<String, ?> accumulators, String name) {
        Object value = accumulators.get(name);
        if (value instanceof Number) {
            return ((Number) value).longValue();
        }
        if (value instanceof String) {
            try {
                return Long.parseLong((String) value);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    /** The accounting line, e.g. {@code input 1,000 = unique 700 + duplicates 200 + late 50 + dead-lettered 50 (...)}. */
    public static String summary(Map<String, ?> accumulators) {
        long input = count(accumulators, INPUT);
        long unique = count(accumulators, DedupOperator.ACCUMULATOR_UNIQUE);
        long duplicates = count(accumulators, DedupOperator.ACCUMULATOR_DUPLICATES);
        long late = count(accumulators, DedupOperator.ACCUMULATOR_LATE);
        long lateDuplicates = count(accumulators, DedupOperator.ACCUMULATOR_LATE_DUPLICATES);
        long deadLettered = count(accumulators, DEAD_LETTERED);
        StringBuilder reasons = new StringBuilder();
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            long n = reason == DeadLetterReason.LATE ? late : count(accumulators, deadLetteredAccumulator(reason));
            if (n > 0) {
                reasons.append(reasons.length() == 0 ? "" : ", ").append(reason.headerValue()).append(' ').append(String.format(Locale.ROOT, "%,d", n));
            }
        }
        long accounted = unique + duplicates + late + deadLettered;
        String balance = accounted == input ? "balanced" : String.format(Locale.ROOT, "%,d records in flight or unaccounted", input - accounted);
        return String.format(Locale.ROOT,
                "input %,d = unique %,d + duplicates %,d (late duplicates %,d) + late %,d + dead-lettered %,d [%s] (%s)",
                input, unique, duplicates, lateDuplicates, late, deadLettered, reasons, balance);
    }
}
