package io.impressiondedup.local;

import io.impressiondedup.testdata.KafkaTopics;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one), running inside this JVM,
 * from the Maven Central artifacts: for the local run and the end-to-end tests. Listens on loopback
 * only, on free ports, stores its log in a fresh temporary directory, and removes it on {@link
 * #close()}.
 *
 * <p>Configured so that transactions work on one node (replication factor and min ISR of the
 * transaction log 1), so that Flink's exactly-once sink can use transaction timeouts up to 2 hours,
 * and so that a transaction past its timeout is aborted within a second. {@link #startWithAuthorizer}
 * adds a SASL/PLAIN listener whose clients only do what ACLs allow.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    /** The largest record the broker and its topics take: the generator's oversized records (100 KiB) fit. */
    static final int MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

    private final Path logDir;
    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final String saslBootstrapServers;

    private EmbeddedKafkaBroker(Path logDir, KafkaRaftServer server, String bootstrapServers, String saslBootstrapServers) {
        this.logDir = logDir;
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.saslBootstrapServers = saslBootstrapServers;
    }

    /** Starts a broker; retries with other ports if one was taken between choosing and binding it. */
    public static EmbeddedKafkaBroker start() throws Exception {
        return start(null);
    }

    /**
     * Starts a broker that also listens for SASL/PLAIN clients ({@link #saslBootstrapServers()}), with
     * {@code plainUsers} (user name to password) and Kafka's {@code StandardAuthorizer}: a SASL client
     * may do only what ACLs allow its {@code User:<name>}. The plaintext listener ({@link
     * #bootstrapServers()}) stays open to everything (its principal, {@code User:ANONYMOUS}, is a super
     * user): for creating topics and ACLs.
     */
    public static EmbeddedKafkaBroker startWithAuthorizer(Map<String, String> plainUsers) throws Exception {
        return start(plainUsers);
    }

    private static EmbeddedKafkaBroker start(Map<String, String> plainUsers) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(plainUsers);
            } catch (Exception e) {
                if (attempt == 5 || !isBindFailure(e)) {
                    throw e;
                }
            }
        }
    }

    private static EmbeddedKafkaBroker startOnce(Map<String, String> plainUsers) throws Exception {
        int[] ports = LoopbackPorts.free(3);
        Path logDir = Files.createTempDirectory("impression-dedup-kafka-");
        try {
            return startIn(logDir, ports[0], ports[1], plainUsers == null ? -1 : ports[2], plainUsers);
        } catch (Exception e) {
            Utils.delete(logDir.toFile()); // nothing left behind by a broker that did not start
            throw e;
        }
    }

    private static EmbeddedKafkaBroker startIn(Path logDir, int port, int controllerPort, int saslPort, Map<String, String> plainUsers)
            throws Exception {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("transaction.max.timeout.ms", "7200000");
        // Transactions past their timeout are aborted within a second, not 10 s: tests of short timeouts stay short.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        p.put("message.max.bytes", Integer.toString(MAX_MESSAGE_BYTES));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        if (plainUsers != null) {
            p.put("listeners", p.get("listeners") + ",SASL://127.0.0.1:" + saslPort);
            p.put("advertised.listeners", p.get("advertised.listeners") + ",SASL://127.0.0.1:" + saslPort);
            p.put("listener.security.protocol.map", p.get("listener.security.protocol.map") + ",SASL:SASL_PLAINTEXT");
            p.put("sasl.enabled.mechanisms", "PLAIN");
            StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
            plainUsers.forEach((user, password) -> jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
            p.put("listener.name.sasl.plain.sasl.jaas.config", jaas.append(';').toString());
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("super.users", "User:ANONYMOUS");
        }
        KafkaConfig config = new KafkaConfig(p, false);

        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(1)
                .setClusterId(Uuid.randomUuid().toString())
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(logDir.toString())
                .setDirectories(List.of(logDir.toString()))
                .setReleaseVersion(MetadataVersion.latestProduction())
                .run();

        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        try {
            server.startup();
        } catch (Exception e) {
            try {
                server.shutdown();
                server.awaitShutdown();
            } catch (Exception ignored) {
                // already failing
            }
            throw e;
        }
        return new EmbeddedKafkaBroker(logDir, server, "127.0.0.1:" + port, plainUsers == null ? null : "127.0.0.1:" + saslPort);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The SASL/PLAIN listener of a broker started {@link #startWithAuthorizer with an authorizer}. */
    public String saslBootstrapServers() {
        if (saslBootstrapServers == null) {
            throw new IllegalStateException("This broker has no SASL listener: start it with startWithAuthorizer");
        }
        return saslBootstrapServers;
    }

    /**
     * Creates topics with the given partition counts (replication factor 1, records up to 4 MiB) and
     * returns once every partition's leader serves requests ({@link KafkaTopics#create}).
     */
    public void createTopics(Map<String, Integer> partitionsByTopic) throws Exception {
        KafkaTopics.create(bootstrapServers, partitionsByTopic, Map.of("max.message.bytes", Integer.toString(MAX_MESSAGE_BYTES)));
    }

    @Override
    public void close() throws IOException {
        server.shutdown();
        server.awaitShutdown();
        Utils.delete(logDir.toFile());
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("failed to bind") || t instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }
}
