package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.kafka.ResumableBoundedKafkaSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A bounded run stopped with a savepoint part way and resumed from it at another parallelism reads
 * the rest of its input and finishes by itself ({@link ResumableBoundedKafkaSource}): every impression
 * in the read_committed output exactly once, the copies read after the resume dropped by the restored
 * state. Real broker, the production topology on a MiniCluster.
 *
 * <p>The stop is part way by construction, not by timing: the bounded source's end offsets are the
 * partitions' end offsets at the first start, and the input's second part is then in a transaction
 * still open on the brokers, which a read_committed reader cannot pass. The first run reads the
 * committed first part and waits; it is stopped with a savepoint; the transaction is committed;
 * the resumed run reads the second part, up to the end offsets its splits kept from the first start.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class BoundedResumeIT {

    static final int PARTITIONS = 4;
    static final int FIRST_PART = 3_000;
    static final int SECOND_PART = 1_000;
    /** Copies of first-part impressions among the second part's records: dropped only if the dedup state was restored. */
    static final int COPIES = 300;
    /** What the resumed run gets to read 1,300 records and finish; it needs a few seconds. */
    static final Duration RESUMED_RUN_DEADLINE = Duration.ofSeconds(90);

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aBoundedRunResumedFromASavepointAtAnotherParallelismFinishesWithEveryImpressionOnce(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("bounded-resume", PARTITIONS);
        long eventTime = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer(topics[0])) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < FIRST_PART; i++) {
                send(producer, topics[0], i, eventTime + i);
            }
            producer.commitTransaction();
            producer.beginTransaction();
            for (int i = FIRST_PART; i < FIRST_PART + SECOND_PART; i++) {
                send(producer, topics[0], i, eventTime + i);
            }
            for (int i = 0; i < COPIES; i++) {
                send(producer, topics[0], i * 7, eventTime + i * 7 + 1000);
            }
            producer.flush(); // in the log, so within the end offsets the first run finds; not readable until committed

            JobClient first = start(EndToEndIT.config(topics, dir, "hashmap", 2), null);
            awaitOutput(topics[1], FIRST_PART, "the first run's output of the committed first part");
            assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            String savepoint = first.stopWithSavepoint(false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(2, TimeUnit.MINUTES);
            producer.commitTransaction();

            JobClient resumed = start(EndToEndIT.config(topics, dir, "hashmap", 3), savepoint);
            try {
                resumed.getJobExecutionResult().get(RESUMED_RUN_DEADLINE.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                JobStatus status = resumed.getJobStatus().get();
                int committed = ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[1]).size();
                resumed.cancel().get(1, TimeUnit.MINUTES);
                throw new AssertionError("The bounded run resumed from " + savepoint + " is still " + status
                        + " after " + RESUMED_RUN_DEADLINE.toSeconds() + " s with " + committed + " of " + (FIRST_PART + SECOND_PART)
                        + " impressions committed: its readers were never told that no more splits will come (FLINK-31006)", e);
            }
        }

        List<String> output = ConsumedRecords.requestIds(ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[1]));
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < FIRST_PART + SECOND_PART; i++) {
            expected.add(requestId(i));
        }
        assertThat(output).as("the read_committed output").hasSize(FIRST_PART + SECOND_PART).doesNotHaveDuplicates();
        assertThat(new HashSet<>(output)).isEqualTo(expected);
        assertThat(ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[2])).as("dead letters").isEmpty();
    }

    /** The production topology on a MiniCluster of its own, at the config's parallelism, from {@code savepoint} if not null. */
    private static JobClient start(DedupJobConfig config, String savepoint) throws Exception {
        Configuration flink = DedupJob.flinkConfiguration(config);
        if (savepoint != null) {
            flink.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(flink);
        env.setParallelism(config.parallelism().orElseThrow());
        DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), DedupJob.kafkaSinks(config));
        return env.executeAsync(DedupJob.jobName(config));
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(String topic) throws Exception {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-producer",
                // Open through the first run and its savepoint: well past Kafka's 1 min default.
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) Duration.ofMinutes(10).toMillis()),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String topic, int n, long eventTime) {
        String impression = "{\"requestId\":\"" + requestId(n) + "\",\"adId\":\"a\",\"ts\":" + eventTime + "}";
        producer.send(new ProducerRecord<>(topic, n % PARTITIONS, null, impression.getBytes(StandardCharsets.UTF_8)));
    }

    private static String requestId(int n) {
        return "r" + n;
    }

    private static void awaitOutput(String topic, int records, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        List<String> ids = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            ids = ConsumedRecords.requestIds(ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topic));
            if (ids.size() >= records) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Timed out waiting for " + what + ": " + ids.size() + " of " + records + " records in " + topic);
    }
}
