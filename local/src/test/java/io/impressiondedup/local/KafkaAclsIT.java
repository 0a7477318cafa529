package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.checks.KafkaAcls;
import io.impressiondedup.job.io.checks.KafkaChecks;
import io.impressiondedup.job.io.checks.OpenTransactionsUnderPrefix;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job on a broker that authorizes (SASL/PLAIN, Kafka's StandardAuthorizer): the ACLs {@link
 * KafkaAcls} lists are enough to check, start and run it; a principal without them is told at
 * submission which ones it lacks (resource type, name, operation), and wrong credentials name the
 * security options. docs/KAFKA-ACCESS.md is this list, explained.
 */
class KafkaAclsIT {

    private static final String JOB_USER = "dedup";
    private static final String JOB_PASSWORD = "dedup-secret-1";
    private static final String STRANGER = "stranger";
    private static final String STRANGER_PASSWORD = "stranger-secret-2";
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = EmbeddedKafkaBroker.startWithAuthorizer(Map.of(JOB_USER, JOB_PASSWORD, STRANGER, STRANGER_PASSWORD));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    static String[] topics(String name) throws Exception {
        String[] topics = {name + "-in", name + "-out", name + "-dlq"};
        broker.createTopics(Map.of(topics[0], 1, topics[1], 1, topics[2], 1));
        return topics;
    }

    static DedupJobConfig config(String[] topics, String user, String password, String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", broker.saslBootstrapServers(), "--input-topic", topics[0],
                "--output-topic", topics[1], "--dlq-topic", topics[2], "--capacity", "1000",
                "--kafka.security.protocol", "SASL_PLAINTEXT", "--kafka.sasl.mechanism", "PLAIN",
                "--kafka.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";"));
        args.addAll(List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    /** Creates the ACLs through the super user's listener and waits until the broker's authorizer has them. */
    static void grant(Collection<AclBinding> acls) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createAcls(acls).all().get();
            for (int attempt = 0; attempt < 100 && !admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(acls); attempt++) {
                Thread.sleep(50);
            }
        }
    }

    @Test
    void theListedAclsAreEnoughToCheckStartAndRunTheJob(@TempDir Path dir) throws Exception {
        String[] topics = topics("acl-ok");
        DedupJobConfig config = config(topics, JOB_USER, JOB_PASSWORD, "--bounded", "--starting-offsets", "earliest",
                "--parallelism", "1", "--checkpoint-interval", "1s", "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString());
        grant(KafkaAcls.bindings(config, "User:" + JOB_USER, true));
        long now = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 200; i++) {
                String impression = "{\"requestId\":\"r-" + i + "\",\"adId\":\"a-" + (i % 3) + "\",\"ts\":" + (now - 60_000) + "}";
                producer.send(new ProducerRecord<>(topics[0], impression.getBytes(StandardCharsets.UTF_8)));
            }
        }

        assertThatCode(() -> KafkaChecks.checkBrokers(config)).doesNotThrowAnyException();
        assertThat(OpenTransactionsUnderPrefix.lookUp(config, new Configuration()).outcome())
                .isEqualTo(OpenTransactionsUnderPrefix.Outcome.NONE_FOUND);
        EndToEndIT.runBounded(config, DedupJob.kafkaSource(config));

        assertThat(ConsumedRecords.readAll(broker.bootstrapServers(), topics[1])).hasSize(200);
    }

    @Test
    void aPrincipalWithoutTheAclsIsToldWhichOnesItLacks() throws Exception {
        String[] topics = topics("acl-missing");
        DedupJobConfig config = config(topics, STRANGER, STRANGER_PASSWORD);
        // Only what a consumer of the input would have.
        grant(List.of(KafkaAcls.required(config).get(0).binding("User:" + STRANGER)));

        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("The job's Kafka principal lacks ACLs on " + broker.saslBootstrapServers() + ": "
                        + "Read on Group '" + config.groupId() + "' (--group-id), "
                        + "Write on Topic 'acl-missing-out' (--output-topic), Read on Topic 'acl-missing-out' (--output-topic), "
                        + "Write on Topic 'acl-missing-dlq' (--dlq-topic), Read on Topic 'acl-missing-dlq' (--dlq-topic), "
                        + "Write on TransactionalId prefix '" + config.transactionalIdPrefix() + "' (--transactional-id-prefix). Grant them")
                .hasMessageNotContaining("Topic 'acl-missing-in'")
                .hasNoCause();
        assertThat(OpenTransactionsUnderPrefix.lookUp(config, new Configuration()).message())
                .contains("the job's principal may not Describe TransactionalId prefix '" + config.transactionalIdPrefix() + "'")
                .endsWith("starting anyway.");
    }

    /** Without it the exactly-once sinks fail at every start (DescribeProducers denied on the topic they write). */
    @Test
    void readOnTheWrittenTopicsIsNamedWhenOnlyItIsMissing() throws Exception {
        String[] topics = topics("acl-read");
        DedupJobConfig config = config(topics, STRANGER, STRANGER_PASSWORD);
        List<AclBinding> allButReadOnWrittenTopics = new ArrayList<>();
        for (KafkaAcls.Acl acl : KafkaAcls.required(config)) {
            if (!(acl.operation() == AclOperation.READ && acl.resourceType() == ResourceType.TOPIC && !acl.name().equals(topics[0]))) {
                allButReadOnWrittenTopics.add(acl.binding("User:" + STRANGER));
            }
        }
        grant(allButReadOnWrittenTopics);

        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("The job's Kafka principal lacks ACLs on " + broker.saslBootstrapServers() + ": "
                        + "Read on Topic 'acl-read-out' (--output-topic), Read on Topic 'acl-read-dlq' (--dlq-topic). Grant them");
    }

    @Test
    void wrongCredentialsNameTheSecurityOptionsNotThePassword() throws Exception {
        String[] topics = topics("acl-password");
        DedupJobConfig config = config(topics, JOB_USER, "not-the-password-3");

        assertThatThrownBy(() -> KafkaChecks.checkBrokers(config))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("The brokers at --bootstrap-servers " + broker.saslBootstrapServers()
                        + " rejected the job's credentials (Authentication failed: Invalid username or password)")
                .hasMessageContaining("--kafka.sasl.jaas.config")
                .hasMessageNotContaining("not-the-password-3");
    }
}
