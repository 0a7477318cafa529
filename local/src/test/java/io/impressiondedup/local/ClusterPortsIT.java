package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.local.StandaloneCluster.ScriptFailed;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code deploy/local/cluster.sh} on a port another process took between the script's check and the JVM's bind (the
 * tests choose free ports, and any process binding an ephemeral one can take it meanwhile). A port that answers is not
 * the broker answering: a Kafka client talking to a Flink server's port ends its network thread, and every later
 * admin call then fails with "The AdminClient thread has exited".
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class ClusterPortsIT {

    @Test
    void aBrokerThatCouldNotBindItsPortFailsTheStartNamingItEvenWhenAnotherProcessListensThere() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (Socket holder = new Socket()) {
            // Bound, not listening: the script's check before the launch connects and is refused, the broker's bind fails.
            holder.bind(new InetSocketAddress(loopback, 0));
            int kafkaPort = holder.getLocalPort();
            int[] others = LoopbackPorts.free(3);
            try (StandaloneCluster cluster = StandaloneCluster.prepare("cluster-ports-it", new int[] {others[0], kafkaPort, others[1], others[2]})) {
                Path kafkaLog = cluster.runDir().resolve("logs/kafka.log");
                // Once the broker has failed to bind, another process listens on its port.
                CompletableFuture<ServerSocket> listener = CompletableFuture.supplyAsync(() -> {
                    try {
                        StandaloneCluster.waitUntil(Duration.ofSeconds(90), "the broker to fail to bind port " + kafkaPort,
                                () -> contains(kafkaLog, "Address already in use"));
                        holder.close();
                        return new ServerSocket(kafkaPort, 50, loopback);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });

                try {
                    assertThatThrownBy(() -> cluster.startProcesses("start-kafka"))
                            .isInstanceOfSatisfying(ScriptFailed.class,
                                    failed -> assertThat(failed.status()).as("exit status").isEqualTo(StandaloneCluster.PORT_TAKEN))
                            .hasMessageContaining("port " + kafkaPort + " is taken by another process (set KAFKA_PORT)");
                } finally {
                    listener.get(90, TimeUnit.SECONDS).close();
                }
            }
        }
    }

    private static boolean contains(Path log, String text) {
        try {
            return Files.isRegularFile(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text);
        } catch (Exception notYetWritten) {
            return false;
        }
    }
}
