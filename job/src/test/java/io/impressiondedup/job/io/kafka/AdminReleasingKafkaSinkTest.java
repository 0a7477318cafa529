package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

class AdminReleasingKafkaSinkTest {

    /** The connector version the build uses holds its exactly-once writer's admin client in the field the sink releases. */
    @Test
    void theConnectorsExactlyOnceWriterHoldsItsAdminClientInTheFieldTheSinkReleases() throws Exception {
        Class<?> writer = Class.forName("org.apache.flink.connector.kafka.sink.ExactlyOnceKafkaWriter");
        assertThat(AdminReleasingKafkaSink.adminClientField(writer)).isNotNull();
        assertThat(AdminReleasingKafkaSink.adminClientField(Class.forName("org.apache.flink.connector.kafka.sink.KafkaWriter")))
                .as("the at-least-once writer holds none").isNull();
    }

    /** A writer's admin client is closed and cleared: its thread, which would keep the job's class loader, is gone. */
    @Test
    void aWritersAdminClientIsClosedAndClearedAndItsThreadEnds() {
        ExactlyOnceKafkaWriter writer = new ExactlyOnceKafkaWriter();
        writer.adminClient = AdminClient.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                AdminClientConfig.CLIENT_ID_CONFIG, "admin-releasing-sink-test"));
        assertThat(adminThreads()).as("the client's thread while it is open").isNotEmpty();

        assertThat(AdminReleasingKafkaSink.releaseAdminClient(writer)).isTrue();

        assertThat(writer.adminClient).isNull();
        assertThat(adminThreads()).as("the client's thread after the release").isEmpty();
        assertThat(AdminReleasingKafkaSink.releaseAdminClient(writer)).as("nothing left to release").isFalse();
    }

    /** A connector whose writer no longer has the field is one this job was not built for: refused, naming the field. */
    @Test
    void aWriterWithoutTheFieldIsRefusedNamingIt() {
        assertThatThrownBy(() -> AdminReleasingKafkaSink.releaseAdminClient(new Renamed.ExactlyOnceKafkaWriter()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("has no field adminClient")
                .hasMessageContaining("a flink-connector-kafka this job was not built for");
    }

    private static Set<String> adminThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(name -> name.contains("admin-releasing-sink-test")).collect(Collectors.toSet());
    }

    /** Stands in for the connector's writer: the same simple name and field. */
    private static final class ExactlyOnceKafkaWriter {
        private Admin adminClient;
    }

    /** A connector version whose writer keeps its client elsewhere. */
    private static final class Renamed {
        private static final class ExactlyOnceKafkaWriter {
            @SuppressWarnings("unused")
            private Admin admin;
        }
    }
}
