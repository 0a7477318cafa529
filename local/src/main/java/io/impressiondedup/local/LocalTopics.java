package io.impressiondedup.local;

import java.util.Map;

/**
 * The Kafka topics of a local run, created on its broker before anything is written.
 *
 * @param input the generated impressions
 * @param output the job's first copies
 * @param deadLetters the job's dead letters
 * @param stats the reconciliation rows ({@code --stats-topic}): per input partition and event-time hour, checked against
 *     the verifier
 */
record LocalTopics(String input, String output, String deadLetters, String stats) {

    static final LocalTopics DEFAULT = new LocalTopics("impressions", "impressions-deduplicated", "impressions-dead-letters",
            "impressions-stats");

    /** Partitions per topic: {@code partitions} for the input and the output, one for the dead-letter and stats topics. */
    Map<String, Integer> partitions(int partitions) {
        return Map.of(input, partitions, output, partitions, deadLetters, 1, stats, 1);
    }
}
