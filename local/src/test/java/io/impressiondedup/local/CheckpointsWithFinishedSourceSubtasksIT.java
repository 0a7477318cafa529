package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.ParsedRecord;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded run with more source subtasks than input partitions (README command 1 with {@code --parallelism 6
 * --partitions 4}) and the reconciliation rows on: the two subtasks without a partition finish at once, and the
 * job must still complete checkpoints, or a backfill of hours keeps its Kafka transactions open past their
 * timeout with no recovery point. Flink refuses to checkpoint such a task if an operator chained to the source
 * keeps union list state.
 *
 * <p>The two subtasks finish within milliseconds of the start, before the first checkpoint is triggered (2 s).
 * The others are slowed behind the source until a checkpoint completes (2 ms a record, 50 s for their input at
 * least; a blocking gate would hold the task's checkpoints too): a job that can checkpoint completes one in that
 * time whatever the machine's load, and then reads at full speed; one that cannot reads to the end without any.
 */
class CheckpointsWithFinishedSourceSubtasksIT {

    static final AtomicBoolean CHECKPOINT_COMPLETED = new AtomicBoolean();
    /** Records read after a checkpoint completed: the final checkpoint, after the last record, completes in any case. */
    static final AtomicLong READ_AFTER_A_CHECKPOINT = new AtomicLong();
    static final int RECORDS = 100_000;
    /** Per record until a checkpoint completes: the 25,000 records of each of 4 partitions then take 50 s at least. */
    static final long HOLD_MILLIS = 2;

    /** Slows the source's records down until a checkpoint has completed, then passes them at full speed. */
    static final class SlowUntilACheckpointCompletes implements MapFunction<ParsedRecord, ParsedRecord>, CheckpointListener {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedRecord map(ParsedRecord record) throws InterruptedException {
            if (CHECKPOINT_COMPLETED.get()) {
                READ_AFTER_A_CHECKPOINT.incrementAndGet();
            } else {
                Thread.sleep(HOLD_MILLIS);
            }
            return record;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINT_COMPLETED.set(true);
        }
    }

    @Test
    void aBoundedRunWithSourceSubtasksThatOwnNoPartitionCompletesCheckpoints(@TempDir Path dir) throws Exception {
        CHECKPOINT_COMPLETED.set(false);
        READ_AFTER_A_CHECKPOINT.set(0);
        String[] topics = SharedKafka.topics("finished-sources", 4);
        String statsTopic = topics[1] + "-stats";
        SharedKafka.broker().createTopics(Map.of(statsTopic, 1));
        EndToEndIT.generate(topics[0], dir, RECORDS, 31);
        DedupJobConfig config = EndToEndIT.config(topics, dir, "hashmap", 6, "--stats-topic", statsTopic);
        ImpressionSource kafka = DedupJob.kafkaSource(config);
        ImpressionSource gated = env -> kafka.create(env).map(new SlowUntilACheckpointCompletes()).returns(ParsedRecord.TYPE_INFO);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(DedupJob.flinkConfiguration(config));
        env.setParallelism(6);
        DedupJob.defineWorkflow(env, config, gated, DedupJob.kafkaSinks(config));
        env.execute(DedupJob.jobName(config));

        assertThat(READ_AFTER_A_CHECKPOINT.get()).as("a checkpoint completed while the bounded run was reading, with 2 of 6 source subtasks"
                + " finished: records read after it (the log names why checkpoints were declined, e.g. PartialFinishingNotSupportedByStateException)")
                .isPositive();
        assertThat(ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[1])).isNotEmpty();
    }
}
