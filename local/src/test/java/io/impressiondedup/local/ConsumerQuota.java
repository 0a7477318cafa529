package io.impressiondedup.local;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;

/**
 * A broker-side fetch quota for every client id (Kafka's default client quota), so that a job reads its input at a
 * known pace: a test can then act while a bounded run is still reading, whatever the machine's speed. Removed on close.
 */
final class ConsumerQuota implements AutoCloseable {

    private static final ClientQuotaEntity EVERY_CLIENT = new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, null));
    private final String bootstrapServers;

    private ConsumerQuota(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    static ConsumerQuota perClient(String bootstrapServers, double bytesPerSecond) throws Exception {
        set(bootstrapServers, bytesPerSecond);
        return new ConsumerQuota(bootstrapServers);
    }

    @Override
    public void close() throws Exception {
        set(bootstrapServers, null);
    }

    private static void set(String bootstrapServers, Double bytesPerSecond) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(EVERY_CLIENT,
                    List.of(new ClientQuotaAlteration.Op("consumer_byte_rate", bytesPerSecond))))).all().get();
        }
    }
}
