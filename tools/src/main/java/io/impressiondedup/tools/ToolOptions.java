package io.impressiondedup.tools;

import io.impressiondedup.job.config.StateBackendType;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/**
 * The options of the state tools that the job does not have. The job's own options the tools take
 * ({@code --capacity}, {@code --shards}, {@code --fingerprint-secret-file}, {@code --state-backend}, ...)
 * are the job's {@link io.impressiondedup.job.config.DedupJobOptions}, parsed and checked the same way,
 * so a tool given the job's arguments sees the plan the job runs.
 */
public final class ToolOptions {

    private ToolOptions() {}

    public static final ConfigOption<String> SAVEPOINT = ConfigOptions.key("savepoint").stringType().noDefaultValue()
            .withDescription("The savepoint (or retained checkpoint) directory to read: the path Flink printed, a local path or a"
                    + " URI of a file system the tools can reach.");
    public static final ConfigOption<String> OUTPUT = ConfigOptions.key("output").stringType().noDefaultValue()
            .withDescription("The directory of the savepoint to write; it must not exist yet. Start the job from it with"
                    + " `flink run -s <output>` (or the REST API's savepointPath).");
    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("parallelism").intType()
            .defaultValue(Runtime.getRuntime().availableProcessors())
            .withDescription("Parallelism of the tool's own local Flink (not the job's). Default: the cores of this machine.");

    /**
     * The engine a tool reads and writes state with: the job's backend. A savepoint of either backend is in Flink's
     * canonical format and restores on either, so this only decides where the tool keeps state while it works (RocksDB
     * spills to local disk).
     */
    public static StateBackend backendOf(StateBackendType type) {
        return type == StateBackendType.HASHMAP ? new HashMapStateBackend() : new EmbeddedRocksDBStateBackend();
    }
}
