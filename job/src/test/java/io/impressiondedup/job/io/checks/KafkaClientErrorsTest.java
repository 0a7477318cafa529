package io.impressiondedup.job.io.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.junit.jupiter.api.Test;

/** A Kafka client that cannot be created from the job's options fails at submission naming the option, not with Kafka's stack trace. */
class KafkaClientErrorsTest {

    static DedupJobConfig config(String bootstrap, String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", bootstrap, "--input-topic", "in", "--output-topic", "out",
                "--dlq-topic", "dlq", "--capacity", "1000"));
        args.addAll(List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    @Test
    void anInvalidSecurityProtocolIsNamed() {
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config("localhost:9092", "--kafka.security.protocol", "SASL_TLS")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("Could not create a Kafka client for --bootstrap-servers localhost:9092: Invalid value SASL_TLS for"
                        + " configuration security.protocol")
                .hasMessageEndingWith("Check --kafka.security.protocol.");
    }

    @Test
    void bootstrapServersThatCannotBeResolvedOrParsedAreNamed() {
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config("no-such-host.invalid:9092")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("No resolvable bootstrap urls").hasMessageEndingWith("Check --bootstrap-servers.");
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config("kafka-without-port")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("Invalid url in bootstrap.servers: kafka-without-port").hasMessageEndingWith("Check --bootstrap-servers.");
    }

    @Test
    void aSaslMechanismWithoutJaasConfigurationIsNamed() {
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config("localhost:9092", "--kafka.security.protocol", "SASL_SSL",
                        "--kafka.sasl.mechanism", "PLAIN")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("Could not find a 'KafkaClient' entry in the JAAS configuration")
                .hasMessageEndingWith("Check --kafka.sasl.jaas.config.");
    }

    @Test
    void aMissingTruststoreIsNamedWithoutShowingItsPassword() {
        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config("localhost:9092", "--kafka.security.protocol", "SSL",
                        "--kafka.ssl.truststore.location", "/no/such/truststore.jks", "--kafka.ssl.truststore.password", "trust-me-123")))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("/no/such/truststore.jks")
                .hasMessageEndingWith("Check --kafka.ssl.truststore.location.")
                .hasMessageNotContaining("trust-me-123");
    }

    @Test
    void theOpenTransactionsCheckNeverFailsTheJob() {
        OpenTransactionsUnderPrefix result = OpenTransactionsUnderPrefix.lookUp(
                config("localhost:9092", "--kafka.security.protocol", "SASL_TLS"), new Configuration());

        assertThat(result.outcome()).isEqualTo(OpenTransactionsUnderPrefix.Outcome.NOT_RUN);
        assertThat(result.message()).startsWith("Could not check for open Kafka transactions under --transactional-id-prefix ")
                .contains("Check --kafka.security.protocol.").endsWith("starting anyway.");
    }

    @Test
    void aJobRestoringStateDoesNotLookForOpenTransactions() {
        Configuration restoring = new Configuration();
        restoring.set(StateRecoveryOptions.SAVEPOINT_PATH, "file:///savepoints/savepoint-1");

        // An unreachable bootstrap address: the check must not contact the brokers at all.
        OpenTransactionsUnderPrefix result = OpenTransactionsUnderPrefix.lookUp(config("127.0.0.1:1"), restoring);

        assertThat(result.outcome()).isEqualTo(OpenTransactionsUnderPrefix.Outcome.SKIPPED_RESTORING);
        assertThat(result.message()).startsWith("Restoring from file:///savepoints/savepoint-1: not looking");
    }

    @Test
    void aMissingAclIsNamedByResourceTypeNameAndOperation() {
        DedupJobConfig config = config("localhost:9092", "--transactional-id-prefix", "dedup-eu", "--group-id", "dedup-eu-group");
        List<String> named = new ArrayList<>();
        KafkaAcls.required(config).forEach(acl -> named.add(acl.describe()));

        assertThat(named).containsExactly(
                "Read on Topic 'in' (--input-topic)",
                "Read on Group 'dedup-eu-group' (--group-id)",
                "Write on Topic 'out' (--output-topic)",
                "Read on Topic 'out' (--output-topic)",
                "Write on Topic 'dlq' (--dlq-topic)",
                "Read on Topic 'dlq' (--dlq-topic)",
                "Write on TransactionalId prefix 'dedup-eu' (--transactional-id-prefix)",
                "DescribeConfigs on Topic 'dlq' (--dlq-topic)",
                "DescribeConfigs on the Cluster");
        assertThat(KafkaAcls.required(config("localhost:9092", "--delivery", "at-least-once")))
                .noneMatch(acl -> acl.resourceType() == org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID);
    }
}
