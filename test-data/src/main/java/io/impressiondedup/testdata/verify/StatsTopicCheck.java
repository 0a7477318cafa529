package io.impressiondedup.testdata.verify;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The job's reconciliation rows ({@code --stats-topic}, read committed) held against what the verifier
 * derives independently ({@link ExpectedHourlyCounts}). The row contract ({@code docs/RECONCILIATION.md})
 * promises four things a billing consumer relies on, and each is checked here:
 *
 * <ol>
 *   <li>the rows of a (topic, partition, hour) count as input every record of that hour in the input topic, no
 *       more and no less: the sum of their {@code input} equals the records the checker counts there itself, from
 *       the input topic and the ground truth ({@link ExpectedHourlyCounts#INPUT}). A row's own fields cannot show
 *       this: the job computes {@code input} as {@code unique + duplicates + late + deadLettered}, so a row balances
 *       by construction (checked still, as a check of the serialized fields) even when a record is missing from
 *       every count;
 *   <li>each row is written once: no (key, {@code closedAtMillis}) twice, whatever restarts happened;
 *   <li>at most one {@code complete} row per (topic, partition, hour): later records go to {@code amendment} rows;
 *   <li>the rows of a (topic, partition, hour) summed equal the verifier's outcome counts for it, for every key either
 *       side has.
 * </ol>
 *
 * Read the topics only once the job has finished or caught up and closed every hour (a bounded run, or a
 * stop with {@code --drain}): rows of hours still open are not yet written.
 */
public final class StatsTopicCheck {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] COUNTS = {"input", "unique", "duplicates", "late", "deadLettered"};
    /** Problems listed in {@link #summary()} at most; {@link #problems()} has them all. */
    private static final int SHOWN = 10;

    private final int completeRows;
    private final int amendmentRows;
    private final int keys;
    private final List<String> problems;

    private StatsTopicCheck(int completeRows, int amendmentRows, int keys, List<String> problems) {
        this.completeRows = completeRows;
        this.amendmentRows = amendmentRows;
        this.keys = keys;
        this.problems = List.copyOf(problems);
    }

    /** Reads the stats topic and the three topics and ground truth {@link ExpectedHourlyCounts} needs, all read committed. */
    public static StatsTopicCheck run(Path truthFile, String bootstrapServers, String inputTopic, String outputTopic,
            String deadLetterTopic, String statsTopic) throws IOException {
        Map<String, long[]> expected = ExpectedHourlyCounts.fromTopics(truthFile, bootstrapServers, inputTopic, outputTopic, deadLetterTopic);
        List<Map.Entry<String, byte[]>> rows = new ArrayList<>();
        TopicReader.readAll(bootstrapServers, statsTopic, Map.of(),
                record -> rows.add(Map.entry(new String(record.key(), StandardCharsets.UTF_8), record.value())));
        return of(expected, rows);
    }

    /**
     * Holds {@code rows} (record key, JSON value, in topic order) against {@code expected} (counts {@code
     * [input, unique, duplicates, late, deadLettered]} per row key, as {@link ExpectedHourlyCounts} gives them).
     */
    public static StatsTopicCheck of(Map<String, long[]> expected, List<Map.Entry<String, byte[]>> rows) {
        Map<String, long[]> summed = new TreeMap<>();
        Map<String, Integer> completeByKey = new TreeMap<>();
        Map<String, Integer> writesByKeyAndClose = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        int complete = 0;
        for (Map.Entry<String, byte[]> record : rows) {
            JsonNode row;
            try {
                row = JSON.readTree(record.getValue());
            } catch (IOException e) {
                throw new UncheckedIOException("the stats row of " + record.getKey() + " is not JSON", e);
            }
            String key = record.getKey();
            long[] counts = new long[COUNTS.length];
            for (int i = 0; i < COUNTS.length; i++) {
                counts[i] = row.path(COUNTS[i]).asLong();
            }
            if (counts[0] != counts[1] + counts[2] + counts[3] + counts[4]) {
                problems.add("row does not balance: " + row);
            }
            long[] sum = summed.computeIfAbsent(key, k -> new long[COUNTS.length]);
            for (int i = 0; i < COUNTS.length; i++) {
                sum[i] += counts[i];
            }
            if (row.path("kind").asText().equals("complete")) {
                complete++;
                completeByKey.merge(key, 1, Integer::sum);
            }
            writesByKeyAndClose.merge(key + " closed at " + row.path("closedAtMillis").asLong(), 1, Integer::sum);
        }
        writesByKeyAndClose.forEach((row, n) -> {
            if (n > 1) {
                problems.add("row written " + n + " times: " + row);
            }
        });
        completeByKey.forEach((key, n) -> {
            if (n > 1) {
                problems.add(n + " complete rows for " + key);
            }
        });
        TreeSet<String> allKeys = new TreeSet<>(expected.keySet());
        allKeys.addAll(summed.keySet());
        for (String key : allKeys) {
            long[] want = expected.getOrDefault(key, new long[COUNTS.length]);
            long[] got = summed.getOrDefault(key, new long[COUNTS.length]);
            if (want[ExpectedHourlyCounts.INPUT] != got[ExpectedHourlyCounts.INPUT]) {
                problems.add(String.format(Locale.ROOT, "%s: rows count %,d input records, the input topic holds %,d of that hour", key,
                        got[ExpectedHourlyCounts.INPUT], want[ExpectedHourlyCounts.INPUT]));
            }
            if (!Arrays.equals(want, 1, COUNTS.length, got, 1, COUNTS.length)) {
                problems.add(key + ": rows sum to " + describe(got) + ", the verifier counts " + describe(want));
            }
        }
        return new StatsTopicCheck(complete, rows.size() - complete, allKeys.size(), problems);
    }

    /** Every broken promise, one line each; empty if the rows hold all four. */
    public List<String> problems() {
        return problems;
    }

    public int completeRows() {
        return completeRows;
    }

    public int amendmentRows() {
        return amendmentRows;
    }

    /** One line: the rows read, and whether they hold; with the first problems if not. */
    public String summary() {
        String head = String.format(Locale.ROOT, "%,d complete and %,d amendment rows over %,d (partition, hour) keys", completeRows,
                amendmentRows, keys);
        if (problems.isEmpty()) {
            return head + "; every row balances, none written twice, their input is every record of its hour, and their sums equal the"
                    + " verifier's counts per (partition, hour)";
        }
        return head + "; " + problems.size() + " problems: " + String.join("; ", problems.subList(0, Math.min(SHOWN, problems.size())))
                + (problems.size() > SHOWN ? "; ..." : "");
    }

    private static String describe(long[] counts) {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < COUNTS.length; i++) {
            text.append(i == 0 ? "" : ", ").append(COUNTS[i]).append('=').append(counts[i]);
        }
        return text.append('}').toString();
    }
}
