package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.checks.TopicMaxMessageBytes;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.operators.model.ParsedRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.sink.internal.KafkaCommitter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The longest safe outage is the transaction timeout (less a checkpoint interval): the job fails
 * after a checkpoint completed and before its Kafka transaction was committed ({@link
 * CommitGateSink}, the job's own output sink), and is held down by its restart delay. Restarted
 * within the timeout, the restored committer commits the transaction: nothing lost. Restarted past
 * it, the brokers have aborted the transaction, the committer says so, and exactly the records that
 * transaction held are missing from the output: the restored source offsets are past them. Real
 * broker, the production topology on a MiniCluster; an 8 s transaction timeout for the outage past it
 * and a minute for the one within it, so that a restart slowed by a loaded machine stays within. The
 * committer's complaints are those naming this run's transactions: other ITs run jobs in the same JVM.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class LongOutageIT {

    static final int RECORDS = 200;
    static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(8);
    /** The timeout of the outage within it: the restart (restore, new producers) takes a few seconds on a loaded machine. */
    static final Duration LONG_TRANSACTION_TIMEOUT = Duration.ofSeconds(60);

    /** Spreads the input over a few checkpoints: the refused one is never the last. */
    static final class Throttle implements MapFunction<ParsedRecord, ParsedRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public ParsedRecord map(ParsedRecord record) throws InterruptedException {
            Thread.sleep(15);
            return record;
        }
    }

    @Test
    void anOutageWithinTheTransactionTimeoutLosesNothing(@TempDir Path dir) throws Exception {
        Outcome outcome = runWithOutage("outage-short", dir, Duration.ZERO, LONG_TRANSACTION_TIMEOUT);

        assertThat(outcome.refusedRecords).as("records in the transaction left open by the failure").isPositive();
        assertThat(outcome.lost).isZero();
        assertThat(outcome.committerComplaints).isEmpty();
    }

    @Test
    void anOutageLongerThanTheTransactionTimeoutLosesExactlyTheOpenTransactionsRecords(@TempDir Path dir) throws Exception {
        // The brokers abort the transaction once older than the timeout, checking every second (EmbeddedKafkaBroker).
        Outcome outcome = runWithOutage("outage-long", dir, TRANSACTION_TIMEOUT.plusSeconds(3), TRANSACTION_TIMEOUT);

        assertThat(outcome.refusedRecords).isPositive();
        assertThat(outcome.lost).isEqualTo(outcome.refusedRecords);
        assertThat(outcome.committerComplaints).hasSize(1);
        assertThat(outcome.committerComplaints.get(0)).contains("Unable to commit transaction")
                .contains(CommitGateSink.REFUSED_TRANSACTIONS.get(0).split("/")[0]);
    }

    record Outcome(long refusedRecords, long lost, List<String> committerComplaints) {}

    static Outcome runWithOutage(String name, Path dir, Duration outage, Duration transactionTimeout) throws Exception {
        CommitGateSink.reset();
        String[] topics = SharedKafka.topics(name, 1);
        long eventTime = System.currentTimeMillis() - 60_000;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedKafka.broker().bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                String impression = "{\"requestId\":\"" + name + "-" + i + "\",\"adId\":\"a\",\"ts\":" + eventTime + "}";
                producer.send(new ProducerRecord<>(topics[0], impression.getBytes(StandardCharsets.UTF_8)));
            }
        }
        DedupJobConfig config = EndToEndIT.config(topics, dir, "hashmap", 1, "--checkpoint-interval", "1s",
                "--transaction-timeout", transactionTimeout.toSeconds() + "s");
        Configuration flink = DedupJob.flinkConfiguration(config);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, outage);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(flink);
        env.setParallelism(1);
        ImpressionSource kafka = DedupJob.kafkaSource(config);
        ImpressionSource throttled = e -> kafka.create(e).map(new Throttle()).returns(ParsedRecord.TYPE_INFO);

        try (CapturedLog committerLog = CapturedLog.of(KafkaCommitter.class)) {
            DedupJob.defineWorkflow(env, config, throttled, (unique, deadLetters, duplicates) -> {
                unique.sinkTo(new CommitGateSink<>(KafkaConnectors.outputSink(config))).uid(KafkaConnectors.OUTPUT_SINK_UID);
                deadLetters.sinkTo(KafkaConnectors.deadLetterSink(config, TopicMaxMessageBytes.ofDeadLetterTopic(config))).uid(KafkaConnectors.DEAD_LETTER_SINK_UID);
            });
            env.execute(name);

            assertThat(CommitGateSink.FIRED).as("the failure was injected").isTrue();
            long output = ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[1]).size();
            List<String> complaints = new java.util.ArrayList<>(committerLog.messages(Level.WARN));
            complaints.addAll(committerLog.messages(Level.ERROR));
            complaints.removeIf(message -> !message.contains(topics[1])); // the transactional ids' prefix (EndToEndIT.config)
            return new Outcome(CommitGateSink.REFUSED_RECORDS.get(), RECORDS - output, complaints);
        }
    }
}
