package io.impressiondedup.tools.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a replay did with each dead letter it read, so that every one is accounted for: read = replayed (or to
 * replay, in a dry run) + not selected (another reason, source or time) + skipped, by why:
 *
 * <ul>
 *   <li>{@value #NOT_OURS}: a record without the contract's headers, selected by nothing;
 *   <li>{@value #NO_TIMESTAMP}: selected, but its original timestamp is unknown;
 *   <li>{@value #INCOMPLETE}: selected, but not a faithful copy of the original (headers dropped, value or key
 *       cut), and {@code --allow-incomplete} not given.
 * </ul>
 *
 * The first {@value #MAX_SKIPPED_SAMPLES} of the first two kinds are listed by position (a topic that is not a
 * dead-letter topic would otherwise print every record). Incomplete dead letters, skipped or replayed anyway,
 * are all listed, each with its source position: each is an original to fetch from the input topic by hand.
 */
final class ReplayAccount {

    /** How many positions of skipped dead letters other than incomplete ones the summary lists. */
    static final int MAX_SKIPPED_SAMPLES = 10;
    static final String NOT_OURS = "not a dead letter of the job";
    static final String NO_TIMESTAMP = "original timestamp unknown";
    static final String INCOMPLETE = "incomplete copy";

    /** Per dead-letter reason: replayed, not selected, skipped. */
    private final Map<String, long[]> byReason = new TreeMap<>();
    private final Map<String, Long> skipped = new TreeMap<>();
    private final List<String> skippedSamples = new ArrayList<>();
    private final List<String> incompleteSkipped = new ArrayList<>();
    private final List<String> incompleteReplayed = new ArrayList<>();
    private long read;
    private long notSelected;

    void read() {
        read++;
    }

    void replayed(String reason) {
        counts(reason)[0]++;
    }

    /** Replayed although it lacks {@code missing} of the original ({@code --allow-incomplete}). */
    void replayedIncomplete(String reason, String position, String source, String missing) {
        replayed(reason);
        incompleteReplayed.add(position + " (from " + source + "): lacks " + missing);
    }

    void notSelected(String reason) {
        counts(reason)[1]++;
        notSelected++;
    }

    /**
     * A record that cannot be replayed: of {@code kind} ({@link #NOT_OURS}, {@link #NO_TIMESTAMP}), with its dead-letter
     * {@code reason} ({@code null} if it has none); {@code detail} says more.
     */
    void skipped(String kind, String reason, String position, String detail) {
        skipped.merge(kind, 1L, Long::sum);
        if (reason != null) {
            counts(reason)[2]++;
        }
        if (skippedSamples.size() < MAX_SKIPPED_SAMPLES) {
            skippedSamples.add(position + ": " + kind + ": " + detail);
        }
    }

    /** A dead letter not replayed because it lacks {@code missing} of the original. */
    void skippedIncomplete(String reason, String position, String source, String missing) {
        skipped.merge(INCOMPLETE, 1L, Long::sum);
        counts(reason)[2]++;
        incompleteSkipped.add(position + " (from " + source + "): lacks " + missing);
    }

    long replayed() {
        return byReason.values().stream().mapToLong(c -> c[0]).sum();
    }

    long skipped() {
        return skipped.values().stream().mapToLong(Long::longValue).sum();
    }

    String summary(boolean dryRun) {
        String replayedWord = dryRun ? "to replay" : "replayed";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("replay%s: %d dead letters read = %d %s%s + %d not selected + %d skipped%n",
                dryRun ? " (dry run, nothing written)" : "", read, replayed(), replayedWord,
                incompleteReplayed.isEmpty() ? "" : " (" + incompleteReplayed.size() + " incomplete)", notSelected, skipped()));
        sb.append(String.format("  %-18s %12s %14s %10s%n", "reason", replayedWord, "not selected", "skipped"));
        byReason.forEach((reason, c) -> sb.append(String.format("  %-18s %12d %14d %10d%n", reason, c[0], c[1], c[2])));
        skipped.forEach((kind, n) -> sb.append(String.format("  skipped, %s: %d%n", kind, n)));
        if (!skippedSamples.isEmpty()) {
            long sampled = skipped() - incompleteSkipped.size();
            sb.append("  skipped dead letters").append(sampled > skippedSamples.size() ? " (first " + skippedSamples.size() + ")" : "")
                    .append(":\n");
            skippedSamples.forEach(line -> sb.append("    ").append(line).append('\n'));
        }
        list(sb, "incomplete dead letters skipped (--allow-incomplete would replay them as they are)", incompleteSkipped);
        list(sb, "incomplete dead letters " + replayedWord + " as they are (--allow-incomplete)", incompleteReplayed);
        return sb.toString();
    }

    private static void list(StringBuilder sb, String title, List<String> lines) {
        if (!lines.isEmpty()) {
            sb.append("  ").append(title).append(":\n");
            lines.forEach(line -> sb.append("    ").append(line).append('\n'));
        }
    }

    private long[] counts(String reason) {
        return byReason.computeIfAbsent(reason, r -> new long[3]);
    }
}
