package io.impressiondedup.job.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The Kafka producer properties the job's sinks set where the user gives none ({@code
 * --kafka.<property>} overrides each), declared once: the sinks apply them, {@code --help} lists them.
 *
 * <ul>
 *   <li>{@code compression.type=lz4}: Kafka's own default is none.
 *   <li>{@code batch.size=65536} (64 KiB; Kafka's default is 16 KiB). Every LZ4 batch allocates two
 *       64 KiB block buffers however few records it holds, and the broker's cost is per request as
 *       much as per byte. With records of about 400 B, those buffers were 1.4 KB of garbage per record
 *       at 16 KiB batches, the largest allocation of the whole job (TaskManager profile, bench/results/2026-11-26-cluster-profile.md):
 *       131 KB per batch, so about 90 records a batch (Kafka sizes a batch by its estimated compressed
 *       bytes), and a produce request per 90 records for the broker. Not larger: a producer holds up to a batch per
 *       partition it writes to, within its {@code buffer.memory} (Kafka's 32 MiB), and the sinks write
 *       to every partition of their topic: 64 KiB batches leave room for 512 partitions before a send
 *       waits for memory. A batch still leaves after {@code linger.ms} (Kafka's 5 ms) however full it
 *       is, so a light stream's records are not held longer (reasoned from Kafka's rules, not measured).
 *   <li>{@code max.request.size=2097152} (2 MiB; Kafka's default is 1 MiB), so that a record the
 *       source admits ({@code --max-record-bytes}) and its dead letter fit a request.
 * </ul>
 */
public final class ProducerDefaults {

    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String BATCH_SIZE = "batch.size";
    public static final String MAX_REQUEST_SIZE = "max.request.size";
    public static final int DEFAULT_MAX_REQUEST_SIZE = 2 * 1024 * 1024;

    private static final KafkaClientDefaults DEFAULTS;

    static {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(COMPRESSION_TYPE, "lz4");
        values.put(BATCH_SIZE, Integer.toString(64 * 1024));
        values.put(MAX_REQUEST_SIZE, Integer.toString(DEFAULT_MAX_REQUEST_SIZE));
        DEFAULTS = new KafkaClientDefaults(values);
    }

    private ProducerDefaults() {}

    /** Sets each default in {@code producer} where it holds no value of the user's. */
    public static void applyTo(Properties producer) {
        DEFAULTS.applyTo(producer);
    }

    /** For {@code --help}: "compression.type=lz4, batch.size=65536, ...". */
    public static String describe() {
        return DEFAULTS.describe();
    }
}
