package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.VerificationReport;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A failure after a completed checkpoint, and recovery: the job restores state and source offsets
 * from the checkpoint, Kafka aborts the open transactions, and what a read_committed consumer sees
 * holds every record exactly once.
 *
 * <p>The failure must come after a checkpoint, with input left to replay: a quiet machine reads all 60,000 records
 * before the first checkpoint completes. So each source reader holds its input after {@link #HOLD_AFTER} records
 * ({@link InputGate}) until a checkpoint has completed, and the job fails {@link #FAIL_AFTER} records later, with
 * each reader about 29,000 records short of its end.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class ExactlyOnceIT {

    /** Records each source reader emits before it waits for a completed checkpoint. */
    static final long HOLD_AFTER = 1_000;
    /** Records after the first completed checkpoint, over all readers, at which the failure is injected. */
    static final long FAIL_AFTER = 1_000;
    static final AtomicBoolean CHECKPOINT_COMPLETED = new AtomicBoolean();
    static final AtomicLong RECORDS_AFTER_CHECKPOINT = new AtomicLong();
    static final AtomicBoolean FAILED = new AtomicBoolean();

    /**
     * Passes records through; opens the input gate when a checkpoint completes, and throws once, on the
     * {@link #FAIL_AFTER}th record after that.
     */
    static final class FailOnceAfterCheckpoint implements MapFunction<ParsedRecord, ParsedRecord>, CheckpointListener {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedRecord map(ParsedRecord record) {
            if (CHECKPOINT_COMPLETED.get() && RECORDS_AFTER_CHECKPOINT.incrementAndGet() == FAIL_AFTER && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure " + FAIL_AFTER + " records after a completed checkpoint");
            }
            return record;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINT_COMPLETED.set(true);
            InputGate.open();
        }
    }

    @Test
    void afterAFailureAndRecoveryEveryRecordIsInTheCommittedOutputExactlyOnce(@TempDir Path dir) throws Exception {
        CHECKPOINT_COMPLETED.set(false);
        RECORDS_AFTER_CHECKPOINT.set(0);
        FAILED.set(false);
        String[] topics = SharedKafka.topics("eos", 2);
        GroundTruth truth = EndToEndIT.generate(topics[0], dir, 60_000, 23);
        DedupJobConfig config = EndToEndIT.config(topics, dir, "rocksdb", 2);
        ImpressionSource held = EndToEndIT.kafkaSourceHeldAfter(config, (record, emitted) -> emitted == HOLD_AFTER);
        ImpressionSource failingOnce = env -> held.create(env).map(new FailOnceAfterCheckpoint()).returns(ParsedRecord.TYPE_INFO);

        EndToEndIT.runBounded(config, failingOnce);

        System.out.printf("source readers that waited for a checkpoint: %d; records after it: %d%n", InputGate.readersThatWaited(),
                RECORDS_AFTER_CHECKPOINT.get());
        assertThat(FAILED).as("the failure was injected").isTrue();
        VerificationReport report = EndToEndIT.verify(truth, topics);
        assertThat(report.exactlyOnceViolations()).as(report.toText(EndToEndIT.FPP)).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(dir.resolve("truth.csv"), config.dedupSettings().plan()))).isEmpty();
        assertThat(report.outputRecords() + report.deadLetterRecords() + report.dropped()).isEqualTo(60_000);
    }
}
