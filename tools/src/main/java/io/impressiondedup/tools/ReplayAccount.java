package io.impressiondedup.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a replay did with each dead letter it read, per reason: replayed (or would be, in a dry run), outside
 * the selection (another reason, source or time), or skipped because it cannot be replayed faithfully (with
 * the first few positions, so that no skip is silent).
 */
final class ReplayAccount {

    /** How many positions of skipped dead letters the summary lists. */
    static final int MAX_SKIPPED_SAMPLES = 10;

    private final Map<String, long[]> byReason = new TreeMap<>();
    private final Map<String, Long> skipped = new TreeMap<>();
    private final List<String> skippedSamples = new ArrayList<>();
    private long read;

    void read() {
        read++;
    }

    void replayed(String reason) {
        counts(reason)[0]++;
    }

    void notSelected(String reason) {
        counts(reason)[1]++;
    }

    /** A dead letter that cannot be replayed: {@code problem} says why (the first words name the kind). */
    void skipped(String position, String problem) {
        String kind = problem.contains(":") ? problem.substring(0, problem.indexOf(':')) : problem;
        skipped.merge(kind, 1L, Long::sum);
        if (skippedSamples.size() < MAX_SKIPPED_SAMPLES) {
            skippedSamples.add(position + ": " + problem);
        }
    }

    long replayed() {
        return byReason.values().stream().mapToLong(c -> c[0]).sum();
    }

    long skipped() {
        return skipped.values().stream().mapToLong(Long::longValue).sum();
    }

    String summary(boolean dryRun) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("replay%s: %d dead letters read, %d %s, %d skipped%n", dryRun ? " (dry run, nothing written)" : "", read,
                replayed(), dryRun ? "to replay" : "replayed", skipped()));
        sb.append(String.format("  %-18s %12s %14s%n", "reason", dryRun ? "to replay" : "replayed", "not selected"));
        byReason.forEach((reason, c) -> sb.append(String.format("  %-18s %12d %14d%n", reason, c[0], c[1])));
        skipped.forEach((kind, n) -> sb.append(String.format("  skipped, %s: %d%n", kind, n)));
        if (!skippedSamples.isEmpty()) {
            sb.append("  skipped dead letters").append(skipped() > skippedSamples.size() ? " (first " + skippedSamples.size() + ")" : "")
                    .append(":\n");
            skippedSamples.forEach(line -> sb.append("    ").append(line).append('\n'));
        }
        return sb.toString();
    }

    private long[] counts(String reason) {
        return byReason.computeIfAbsent(reason, r -> new long[2]);
    }
}
