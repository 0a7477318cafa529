package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.checks.BrokerFindings;
import io.impressiondedup.job.io.checks.KafkaChecks;
import io.impressiondedup.job.io.checks.OpenTransactionsUnderPrefix;
import io.impressiondedup.job.io.checks.TopicMaxMessageBytes;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** What the job checks against the brokers before it starts, on a real broker. */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class KafkaChecksIT {

    static DedupJobConfig config(String[] topics, String... extra) throws Exception {
        String[] base = {"--bootstrap-servers", SharedKafka.broker().bootstrapServers(), "--input-topic", topics[0], "--output-topic",
            topics[1], "--dlq-topic", topics[2], "--capacity", "1000"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return DedupJobConfig.parse(args);
    }

    @Test
    void existingTopicsAndAnAcceptedTransactionTimeoutPass() throws Exception {
        String[] topics = SharedKafka.topics("checks-ok", 1);
        assertThatCode(() -> KafkaChecks.checkBrokers(config(topics))).doesNotThrowAnyException();
    }

    @Test
    void theSubmissionAsksEveryQuestionThroughOneAdminClient() throws Exception {
        String[] topics = SharedKafka.topics("checks-one-admin", 1);
        DedupJobConfig config = config(topics);
        BrokerFindings findings;
        List<String> adminClientsCreated;
        // Kafka logs each client's configuration once, on the thread that creates the client ("AdminClientConfig values: ...");
        // the ITs running beside this one create clients of their own on their threads.
        try (CapturedLog admins = CapturedLog.of(AbstractConfig.class)) {
            findings = KafkaChecks.atSubmission(config, new Configuration());
            adminClientsCreated = admins.messagesOfThisThread(Level.INFO).stream().filter(m -> m.startsWith("AdminClientConfig values")).toList();
        }
        assertThat(adminClientsCreated).hasSize(1);
        assertThat(findings.deadLetterTopicMaxMessageBytes()).isEqualTo(TopicMaxMessageBytes.ofDeadLetterTopic(config)).isPositive();
        assertThat(findings.openTransactions().outcome()).isEqualTo(OpenTransactionsUnderPrefix.Outcome.NONE_FOUND);
    }

    @Test
    void missingTopicsAreNamedWithTheirOptions() throws Exception {
        String[] topics = SharedKafka.topics("checks-missing", 1);
        String[] withMissing = {topics[0], "never-created-out", topics[2]};
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config(withMissing, "--duplicates-topic", "never-created-dups")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("--output-topic 'never-created-out'")
                .hasMessageContaining("--duplicates-topic 'never-created-dups'")
                .hasMessageNotContaining(topics[0]);
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersMaximumIsRejected() throws Exception {
        String[] topics = SharedKafka.topics("checks-timeout", 1);
        // The embedded broker allows transactions of up to 2 hours (EmbeddedKafkaBroker).
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config(topics, "--transaction-timeout", "3h")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("--transaction-timeout 10800s exceeds the brokers' transaction.max.timeout.ms (7200s)");
        assertThatCode(() -> KafkaChecks.checkBrokers(config(topics, "--transaction-timeout", "3h", "--delivery", "at-least-once")))
                .doesNotThrowAnyException();
    }
}
