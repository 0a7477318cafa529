package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.checks.OpenTransactionsUnderPrefix.Outcome;
import io.impressiondedup.job.io.checks.OpenTransactionsUnderPrefix;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A job started without state looks for open transactions under its transactional-id prefix (another
 * job with the same prefix, or an earlier run): a warning naming the option, never a failure. On a
 * real broker, with a transaction opened as the job's output sink would open it.
 */
class OpenTransactionsCheckIT {

    static KafkaProducer<byte[], byte[]> openTransaction(String transactionalId, String topic) throws Exception {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.broker().bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId),
                new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "{}".getBytes())).get();
        return producer;
    }

    @Test
    void aJobStartingWithoutStateWarnsOfAnotherJobsOpenTransactionUnderItsPrefix() throws Exception {
        String[] topics = SharedKafka.topics("open-txn", 1);
        DedupJobConfig config = KafkaChecksIT.config(topics);
        String otherRunsId = config.transactionalIdPrefix() + "-output-0-7";

        try (KafkaProducer<byte[], byte[]> otherRun = openTransaction(otherRunsId, topics[1]);
                CapturedLog log = CapturedLog.of(OpenTransactionsCheckIT.class)) {
            OpenTransactionsUnderPrefix result = OpenTransactionsUnderPrefix.lookUp(config, new Configuration());
            result.logTo(LoggerFactory.getLogger(OpenTransactionsCheckIT.class));

            assertThat(result.outcome()).isEqualTo(Outcome.FOUND);
            assertThat(result.transactionalIds()).containsExactly(otherRunsId);
            assertThat(log.messages(Level.WARN)).containsExactly(result.message());
            assertThat(result.message()).startsWith("Found 1 open Kafka transaction(s) under --transactional-id-prefix "
                    + config.transactionalIdPrefix() + " [" + otherRunsId + "]").contains("Give this job a distinct --transactional-id-prefix");
            otherRun.abortTransaction();
        }
        assertThat(outcomeOnceAbortsComplete(config)).isEqualTo(Outcome.NONE_FOUND);
    }

    /** The check's outcome once the brokers have completed the aborts (PREPARE_ABORT counts as open; it lasts milliseconds). */
    static Outcome outcomeOnceAbortsComplete(DedupJobConfig config) throws InterruptedException {
        OpenTransactionsUnderPrefix result = OpenTransactionsUnderPrefix.lookUp(config, new Configuration());
        for (int attempt = 0; attempt < 50 && result.outcome() == Outcome.FOUND; attempt++) {
            Thread.sleep(100);
            result = OpenTransactionsUnderPrefix.lookUp(config, new Configuration());
        }
        return result.outcome();
    }

    @Test
    void anotherPrefixsTransactionsAndARestoringJobGetNoWarning() throws Exception {
        String[] topics = SharedKafka.topics("open-txn-other", 1);
        DedupJobConfig config = KafkaChecksIT.config(topics);
        DedupJobConfig otherJob = KafkaChecksIT.config(new String[] {topics[0], topics[2], topics[1]});
        Configuration restoring = new Configuration();
        restoring.set(StateRecoveryOptions.SAVEPOINT_PATH, "file:///savepoints/savepoint-1");

        try (KafkaProducer<byte[], byte[]> otherJobs = openTransaction(otherJob.transactionalIdPrefix() + "-output-0-1", topics[2]);
                KafkaProducer<byte[], byte[]> ours = openTransaction(config.transactionalIdPrefix() + "-dlq-0-1", topics[2])) {
            assertThat(OpenTransactionsUnderPrefix.lookUp(otherJob, new Configuration()).transactionalIds())
                    .containsExactly(otherJob.transactionalIdPrefix() + "-output-0-1");
            assertThat(OpenTransactionsUnderPrefix.lookUp(config, restoring).outcome()).isEqualTo(Outcome.SKIPPED_RESTORING);
            ours.abortTransaction();
            assertThat(outcomeOnceAbortsComplete(config)).isEqualTo(Outcome.NONE_FOUND);
            otherJobs.abortTransaction();
        }
    }
}
