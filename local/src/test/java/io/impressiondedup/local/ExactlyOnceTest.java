package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.testdata.GroundTruth;
import io.impressiondedup.testdata.VerificationReport;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure after a completed checkpoint, and recovery: the job restores state and source offsets
 * from the checkpoint, Kafka aborts the open transactions, and what a read_committed consumer sees
 * holds every record exactly once.
 */
class ExactlyOnceTest {

    static final AtomicBoolean CHECKPOINT_COMPLETED = new AtomicBoolean();
    static final AtomicBoolean FAILED = new AtomicBoolean();

    /** Passes records through, and throws once, on the first record after the first completed checkpoint. */
    static final class FailOnceAfterCheckpoint implements MapFunction<ParsedRecord, ParsedRecord>, CheckpointListener {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedRecord map(ParsedRecord record) {
            if (CHECKPOINT_COMPLETED.get() && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("Injected failure after a completed checkpoint");
            }
            return record;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINT_COMPLETED.set(true);
        }
    }

    @Test
    void afterAFailureAndRecoveryEveryRecordIsInTheCommittedOutputExactlyOnce(@TempDir Path dir) throws Exception {
        CHECKPOINT_COMPLETED.set(false);
        FAILED.set(false);
        String[] topics = SharedKafka.topics("eos", 2);
        GroundTruth truth = EndToEndTest.generate(topics[0], dir, 60_000, 23);
        DedupJobConfig config = EndToEndTest.config(topics, dir, "rocksdb", 2);
        ImpressionSource kafka = DedupJob.kafkaSource(config);
        ImpressionSource failingOnce = env -> kafka.create(env).map(new FailOnceAfterCheckpoint()).returns(ParsedRecord.TYPE_INFO);

        EndToEndTest.runBounded(config, failingOnce);

        assertThat(FAILED).as("the failure was injected").isTrue();
        VerificationReport report = EndToEndTest.verify(truth, topics);
        assertThat(report.exactlyOnceViolations()).as(report.toText(EndToEndTest.FPP)).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(dir.resolve("truth.csv"), config.dedupSettings().plan()))).isEmpty();
        assertThat(report.outputRecords() + report.deadLetterRecords() + report.dropped()).isEqualTo(60_000);
    }
}
