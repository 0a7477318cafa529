package io.impressiondedup.job.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The Kafka consumer properties the job's source sets where the user gives none ({@code --kafka.<property>} overrides
 * each), declared once: the source applies them, {@code --help} lists them.
 *
 * <ul>
 *   <li>{@code fetch.max.bytes=262144} (256 KiB; Kafka's default is 50 MiB, with {@code max.partition.fetch.bytes} of
 *       1 MiB a partition). The consumer reads each fetch response into one heap buffer of the response's size. With
 *       Kafka's defaults a subtask reading two busy partitions received responses of about 2 MB: on the heap of a
 *       TaskManager as Flink configures it by default (512 MB, so 1 MiB G1 regions), every buffer of 512 KiB or more is
 *       a humongous object, and each humongous allocation made while the heap is past G1's occupancy threshold starts
 *       a concurrent marking of the whole heap. The dedup operator's page cache keeps the heap past that threshold, so
 *       with 50M impressions restored (Flink's defaults and the consumer-weights line, one profiled 4M run): 228 such
 *       buffers started 35 marking cycles, whose thread took 4.34 s of CPU against 0.58 s in the keyed pass-through
 *       beside it, about 0.9 us of every record. At 256 KiB a response stays well below the smallest G1 region's
 *       humongous threshold (a first record batch larger than the limit still comes whole, as Kafka guarantees
 *       progress), at the price of eight times the fetch requests: a few hundred a second for a subtask's tens of
 *       MB/s. Measured at 50M, 3 rounds beside the build before: the Bloom format 11.50 -> 8.70 us of TaskManager CPU a
 *       record, fingerprints 11.84 -> 11.35; the collector 2.00 -> 1.28 us (bench/README.md, section 0c).
 * </ul>
 */
public final class ConsumerDefaults {

    /**
     * Objects of this size or more are humongous on every G1 heap: half of G1's smallest region (1 MiB, which heaps below
     * 2 GB have, a TaskManager's default heap among them).
     */
    public static final int SMALLEST_HUMONGOUS_BYTES = 512 * 1024;

    public static final String FETCH_MAX_BYTES = "fetch.max.bytes";
    public static final int DEFAULT_FETCH_MAX_BYTES = 256 * 1024;

    private static final KafkaClientDefaults DEFAULTS;

    static {
        Map<String, String> values = new LinkedHashMap<>();
        values.put(FETCH_MAX_BYTES, Integer.toString(DEFAULT_FETCH_MAX_BYTES));
        DEFAULTS = new KafkaClientDefaults(values);
    }

    private ConsumerDefaults() {}

    /** Sets each default in {@code consumer} where it holds no value of the user's. */
    public static void applyTo(Properties consumer) {
        DEFAULTS.applyTo(consumer);
    }

    /** For {@code --help}: "fetch.max.bytes=262144". */
    public static String describe() {
        return DEFAULTS.describe();
    }
}
