package io.impressiondedup.local;

import io.impressiondedup.testdata.verify.KafkaCatchUp;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a job on a {@link StandaloneCluster} has caught up with its input: every record written so far is in a completed
 * checkpoint, and no transaction is open on its output topics, so a {@code read_committed} reader sees the job's whole
 * output for that input. The tests wait for this before they stop, savepoint or verify a job.
 *
 * <p>Why not simply wait for the consumer group's committed offsets ({@link KafkaCatchUp#await}, what the generator's
 * {@code verify} command does): the job commits its offsets when a checkpoint completes, but the Kafka source
 * (flink-connector-kafka 5.0.0-2.2) hands the commit to its split fetcher without waking it, and the fetcher polls with
 * a fixed 10 s timeout ({@code KafkaPartitionSplitReader.POLL_TIMEOUT}, not configurable in that version). Once the input
 * is drained, every commit waits for the idle poll to time out: the committed offsets trail the checkpoints by up to 10
 * s, at every catch-up of every test. This class waits for the checkpoints themselves instead. The rule, in order:
 *
 * <ol>
 *   <li><b>The source has read the input.</b> Summed over the input's partitions, {@code currentOffset + 1} of the
 *       Kafka source reader reaches {@code records}, the records written. The reader sets that gauge to a record's
 *       offset as it takes the record from a fetched batch to emit it, in the task's thread ({@code
 *       KafkaPartitionSplitRecords.nextRecordFromSplit}); the TaskManagers' Prometheus reporters serve it live (the
 *       REST API's copy is up to {@code metrics.fetcher.update-interval} old). Per partition the series of the newest
 *       task attempt counts. Offsets also count transaction markers, which follow the data, so a transactional input
 *       reaches its record count no earlier than its last record is read.</li>
 *   <li><b>Two checkpoints triggered after that completed</b>, as the JobManager's log says ({@code Triggering
 *       checkpoint N} logged after step 1 held, then {@code Completed checkpoint N}). A barrier injected after step 1
 *       follows every record counted there, and barriers are aligned, so that checkpoint's transactions hold all their
 *       output. The second makes this independent of when the JobManager logs a trigger relative to sending it: it is
 *       triggered after the first completed (one checkpoint at a time), so surely after step 1.</li>
 *   <li><b>No transaction open on the outputs</b>: the sinks commit a checkpoint's transactions after it completed.</li>
 * </ol>
 *
 * <p>A restart of the job in the JobManager's log (at any time, also before this wait began) sends the rule back to
 * step 1, which then waits until a checkpoint completed after the restart: the new attempt re-reads from its last
 * checkpoint, and until then a scrape could still show the old attempt's offsets.
 *
 * <p>The committed offsets stay an alternative exit ({@code committed >= records} and no open transaction, what {@link
 * KafkaCatchUp#await} waits for): a partition that gets no record after a restore never reports a {@code currentOffset}.
 *
 * <p>Nothing here sleeps for a condition. If a signal came too early, records would be missing from the committed
 * output when it is read: the test fails (lost impressions), it never passes falsely.
 */
final class CheckpointedCatchUp {

    private static final Pattern SERIES = Pattern.compile(
            "(?m)^flink_taskmanager_job_task_operator_KafkaSourceReader_topic_partition_currentOffset\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private CheckpointedCatchUp() {}

    /** {@link #await(StandaloneCluster, String, String, String, long, Collection, Duration)} for the records of the input's end offsets now. */
    static void await(StandaloneCluster cluster, String job, String group, String inputTopic, Collection<String> outputTopics,
            Duration timeout) throws Exception {
        long records;
        try (KafkaCatchUp kafka = new KafkaCatchUp(cluster.bootstrapServers(), Map.of())) {
            records = kafka.endOffset(inputTopic);
        }
        await(cluster, job, group, inputTopic, records, outputTopics, timeout);
    }

    /**
     * Waits until job {@code job} has read the first {@code records} records of {@code inputTopic} and checkpointed them,
     * and no transaction is open on {@code outputTopics} (class comment), or until its consumer group {@code group} has
     * committed as many and no transaction is open.
     *
     * @throws TimeoutException naming the step it waited on
     */
    static void await(StandaloneCluster cluster, String job, String group, String inputTopic, long records,
            Collection<String> outputTopics, Duration timeout) throws Exception {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        Pattern restart = Pattern.compile("\\(" + job + "\\) switched from state \\w+ to RESTARTING");
        Pattern triggering = Pattern.compile("Triggering checkpoint (\\d+) .* for job " + job);
        Pattern completed = Pattern.compile("Completed checkpoint (\\d+) for job " + job);
        try (LogFollower log = LogFollower.fromStart(cluster.jobManagerLog());
                KafkaCatchUp kafka = new KafkaCatchUp(cluster.bootstrapServers(), Map.of())) {
            boolean restarted = false; // a restart without a checkpoint completed after it
            long read = -1;            // records read as of step 1, or -1 while it does not hold
            Set<Long> triggeredSince = new HashSet<>();
            int completedSince = 0;
            long committed = -1;
            int open = -1;
            while (true) {
                for (String line : log.newLines()) {
                    Matcher m;
                    if (restart.matcher(line).find()) {
                        restarted = true;
                        read = -1;
                        triggeredSince.clear();
                        completedSince = 0;
                    } else if (read >= 0 && (m = triggering.matcher(line)).find()) {
                        triggeredSince.add(Long.parseLong(m.group(1)));
                    } else if ((m = completed.matcher(line)).find()) {
                        restarted = false;
                        if (triggeredSince.contains(Long.parseLong(m.group(1)))) {
                            completedSince++;
                        }
                    }
                }
                if (read < 0 && !restarted) {
                    long fetched = recordsFetched(cluster.scrapePrometheus(), job, inputTopic);
                    // Lines logged up to the scrape describe what came before it: take them in as such (a restart among
                    // them undoes the scrape), so that only checkpoints triggered after it count.
                    for (String line : log.newLines()) {
                        if (restart.matcher(line).find()) {
                            restarted = true;
                        } else if (completed.matcher(line).find()) {
                            restarted = false;
                        }
                    }
                    if (fetched >= records && !restarted) {
                        read = fetched;
                    }
                }
                if (completedSince >= 2 && (open = kafka.openTransactions(outputTopics)) == 0) {
                    System.out.printf(Locale.ROOT, "job %s caught up with %d records of %s: read, checkpointed twice since, no open"
                            + " transaction, after %.1f s%n", job, records, inputTopic, (System.nanoTime() - started) / 1e9);
                    return;
                }
                committed = kafka.committed(group, inputTopic);
                if (committed >= records && (open = kafka.openTransactions(outputTopics)) == 0) {
                    System.out.printf(Locale.ROOT, "job %s caught up with %d records of %s: committed, no open transaction, after"
                            + " %.1f s%n", job, records, inputTopic, (System.nanoTime() - started) / 1e9);
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(String.format(Locale.ROOT, "After %d s, job %s has %s; group %s has committed %d of %d"
                            + " records of %s; open transactions on %s: %d", timeout.toSeconds(), job,
                            restarted ? "restarted and completed no checkpoint since"
                                    : read < 0 ? "not read all " + records + " records (per its currentOffset gauges)"
                                    : "read them, then completed " + completedSince + " of the 2 checkpoints triggered after",
                            group, committed, records, inputTopic, outputTopics, open));
                }
                Thread.sleep(100);
            }
        }
    }

    /**
     * Records of {@code topic} the job's source readers have fetched, as their {@code currentOffset} gauges in a Prometheus
     * scrape have it: per partition, {@code currentOffset + 1} of the newest task attempt (an earlier attempt's series can
     * linger in a scrape while its task is cancelled), summed.
     */
    static long recordsFetched(String scrape, String job, String topic) {
        Map<String, long[]> byPartition = new HashMap<>(); // partition -> {attempt, currentOffset + 1}
        Matcher series = SERIES.matcher(scrape);
        while (series.find()) {
            Map<String, String> labels = new HashMap<>();
            Matcher label = LABEL.matcher(series.group(1));
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
            if (!job.equals(labels.get("job_id")) || !labelValue(topic).equals(labels.get("topic"))) {
                continue;
            }
            long attempt = Long.parseLong(labels.getOrDefault("task_attempt_num", "0"));
            long fetched = (long) Double.parseDouble(series.group(2)) + 1;
            byPartition.merge(labels.get("partition"), new long[] {attempt, fetched},
                    (a, b) -> a[0] != b[0] ? (a[0] > b[0] ? a : b) : (a[1] >= b[1] ? a : b));
        }
        return byPartition.values().stream().mapToLong(v -> Math.max(0, v[1])).sum();
    }

    /** A label value as Flink's Prometheus reporter writes it: every character but letters, digits, ':' and '_' as '_'. */
    private static String labelValue(String value) {
        return value.replaceAll("[^a-zA-Z0-9:_]", "_");
    }
}
