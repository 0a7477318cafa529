package io.impressiondedup.testdata.verify;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import io.impressiondedup.testdata.TestDataHeaders;

/**
 * What the job's reconciliation rows (its {@code --stats-topic}) must sum to per (input topic, partition,
 * event-time hour), derived independently of the job from the ground truth (each record's event time),
 * the input topic (each record's partition and Kafka timestamp) and what the job wrote (output: unique;
 * dead letters: late or dead-lettered by reason; in neither: a dropped duplicate). An impression counts in
 * the UTC hour of its event time, a record the router dead-letters (malformed, oversized, future-timestamp)
 * in the hour of its Kafka timestamp. Counts are {@code [input, unique, duplicates, late, deadLettered]}, keyed
 * like the rows: {@code <topic>/<partition>/<hour ISO>}.
 */
public final class ExpectedHourlyCounts {

    public static final int INPUT = 0;
    public static final int UNIQUE = 1;
    public static final int DUPLICATES = 2;
    public static final int LATE = 3;
    public static final int DEAD_LETTERED = 4;

    private static final long HOUR = 3_600_000L;

    private ExpectedHourlyCounts() {}

    /** Reads the three topics whole (read_committed) and the ground truth's event times. */
    public static Map<String, long[]> fromTopics(Path truthFile, String bootstrapServers, String inputTopic, String outputTopic,
            String deadLetterTopic) throws IOException {
        long[] eventTimes = GroundTruth.eventTimes(truthFile);
        int n = eventTimes.length;
        int[] partitions = new int[n];
        long[] kafkaTimestamps = new long[n];
        Arrays.fill(partitions, -1);
        TopicReader.readAll(bootstrapServers, inputTopic, Map.of(), r -> {
            int seq = seqOf(r.headers().lastHeader(TestDataHeaders.SEQ).value());
            partitions[seq] = r.partition();
            kafkaTimestamps[seq] = r.timestamp();
        });
        boolean[] output = new boolean[n];
        String[] reasons = new String[n];
        TopicReader.readAll(bootstrapServers, outputTopic, Map.of(), r -> output[seqOf(TopicReader.lastHeader(r, TestDataHeaders.SEQ))] = true);
        TopicReader.readAll(bootstrapServers, deadLetterTopic, Map.of(), r -> reasons[seqOf(TopicReader.lastHeader(r, TestDataHeaders.SEQ))] =
                new String(TopicReader.lastHeader(r, TestDataHeaders.DEAD_LETTER_REASON), StandardCharsets.UTF_8));
        Map<String, long[]> counts = new TreeMap<>();
        for (int seq = 0; seq < n; seq++) {
            if (partitions[seq] < 0) {
                throw new IllegalStateException("record " + seq + " of the ground truth is not in " + inputTopic);
            }
            int outcome;
            long time = eventTimes[seq];
            if (reasons[seq] != null && !reasons[seq].equals("late")) {
                outcome = DEAD_LETTERED;
                time = kafkaTimestamps[seq];
            } else if (reasons[seq] != null) {
                outcome = LATE;
            } else {
                outcome = output[seq] ? UNIQUE : DUPLICATES;
            }
            if (time == Long.MIN_VALUE) {
                throw new IllegalStateException("record " + seq + " counts as " + outcome + " but has no event time in the ground truth");
            }
            long[] row = counts.computeIfAbsent(key(inputTopic, partitions[seq], time), k -> new long[5]);
            row[INPUT]++;
            row[outcome]++;
        }
        return counts;
    }

    /** The row key of a record of {@code topic}, {@code partition} counted at {@code time}: {@code <topic>/<partition>/<hour ISO>}. */
    public static String key(String topic, int partition, long time) {
        return topic + "/" + partition + "/" + Instant.ofEpochMilli(time - Math.floorMod(time, HOUR));
    }

    private static int seqOf(byte[] header) {
        return Integer.parseInt(new String(header, StandardCharsets.US_ASCII));
    }
}
