package io.impressiondedup.job.config;

import java.util.List;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.rocksdb.CompressionType;

/**
 * The RocksDB options the job relies on, set on the job where the cluster's configuration gives none:
 * a cluster configured by Flink's defaults runs the job as tuned, and an operator's own value for any
 * of them wins.
 *
 * <ul>
 *   <li>{@code state.backend.rocksdb.use-bloom-filter: true} (Flink's default: false). Every record
 *       reads one page group by key; without a filter, a read probes each SST file whose key range
 *       covers the key, and the groups' keys are spread over every file.
 *   <li>{@code state.backend.rocksdb.compression.per.level: NO_COMPRESSION} (Flink's default: Snappy on
 *       every level). Pages of Bloom bits and Elias-Fano sections are close to random: compression
 *       gains nothing on them and costs the flush and compaction threads CPU.
 * </ul>
 *
 * Together, measured with 50M impressions in state on the project's cluster (docs/SCALING.md section
 * 1b): 26.7-29.2 to 18.7 us of TaskManager CPU per record. They apply through the job's configuration,
 * which Flink merges over the cluster's when it configures the job's state backend; the merge cannot
 * tell a cluster's value from Flink's default, so the job looks at the configuration its {@code main}
 * sees (the JobManager's, or the submitting client's, with its {@code -D}s).
 */
public final class RocksDbDefaults {

    /** Option -> the job's value, each applied only where the cluster's configuration has none. */
    public static final List<Default<?>> VALUES = List.of(
            new Default<>(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true),
            new Default<>(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL, List.of(CompressionType.NO_COMPRESSION)));

    private RocksDbDefaults() {}

    /** Sets in {@code job} each of {@link #VALUES} that {@code cluster} does not set. */
    public static void applyTo(Configuration job, ReadableConfig cluster) {
        VALUES.forEach(value -> value.applyTo(job, cluster));
    }

    /** One option and the job's value for it. */
    public record Default<T>(ConfigOption<T> option, T value) {
        void applyTo(Configuration job, ReadableConfig cluster) {
            if (cluster.getOptional(option).isEmpty()) {
                job.set(option, value);
            }
        }
    }
}
