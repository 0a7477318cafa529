package io.impressiondedup.job.config;

import java.util.List;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * The RocksDB options the job relies on, set on the job where the cluster's configuration gives none:
 * a cluster configured by Flink's defaults runs the job as tuned, and an operator's own value for any
 * of them wins.
 *
 * <ul>
 *   <li>{@code state.backend.rocksdb.use-bloom-filter: true} (Flink's default: false). Every record
 *       reads one page group by key; without a filter, a read probes each SST file whose key range
 *       covers the key, and the groups' keys are spread over every file (a restored state leaves many).
 *   <li>{@code state.backend.rocksdb.options-factory: }{@link RocksDbCompactionOptions} (Flink's default: none): level 0
 *       compacts at 8 files, not 4, so that a checkpoint uploads the page journal's and the pages' compaction
 *       rewrites half as often.
 * </ul>
 *
 * Measured on a cluster with Flink's default configuration, 20M impressions restored, 4M records
 * (bench/run-cluster-headline.sh --cluster-config flink-defaults, bench/README.md): 30.9 us of
 * TaskManager CPU per record without the filter, 23.2 with it (Snappy compression, Flink's default,
 * left on) and 21.9 with it and compression off. Compression is left to Flink's default: off, it
 * saved at most 1.2 us per record there but wrote 1.5-2x the checkpoint bytes with a small state,
 * whose sparse pages Snappy halves.
 *
 * <p>They apply through the job's configuration, which Flink merges over the cluster's when it
 * configures the job's state backend; the merge cannot tell a cluster's value from Flink's default, so
 * the job looks at the configuration its {@code main} sees (the JobManager's, or the submitting
 * client's, with its {@code -D}s).
 */
public final class RocksDbDefaults {

    /** Option -> the job's value, each applied only where the cluster's configuration has none. */
    public static final List<Default<?>> VALUES = List.of(new Default<>(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true),
            new Default<>(RocksDBOptions.OPTIONS_FACTORY, RocksDbCompactionOptions.class.getName()));

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
