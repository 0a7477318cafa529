package io.impressiondedup.tools;

import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.StateBackendType;
import java.io.IOException;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.core.fs.Path;
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
    /** Every verb takes it ({@link VerbRun}); the quiet default is the {@code log4j2.properties} of {@code dedup-tools.jar}. */
    public static final ConfigOption<Boolean> VERBOSE = ConfigOptions.key("verbose").booleanType().defaultValue(false)
            .withDescription("Also print the log of the libraries the tool runs (Flink, the Kafka clients) at INFO on stderr, and a"
                    + " failure's full stack trace. Without it the tool prints only its own lines (its results, its progress, and"
                    + " on a failure the cause in one line), and of the libraries' log only their errors.");

    /**
     * The value of {@link #OUTPUT}, checked to name nothing yet: a write that fails removes what it left there
     * ({@link #removeOutput}), which must never be anything the user had.
     */
    public static String newOutput(String output) {
        try {
            Path path = new Path(output);
            if (path.getFileSystem().exists(path)) {
                throw new InvalidOptionException("--" + OUTPUT.key() + " " + output + " exists: give a new directory");
            }
        } catch (IOException e) {
            throw new InvalidOptionException("Cannot check --" + OUTPUT.key() + " " + output + ": " + e, e);
        }
        return output;
    }

    /**
     * Removes what a failed write left at {@code output} ({@link #newOutput}): an incomplete savepoint must not be there
     * for a job to start from. A failure to remove it is added to {@code failure}, which stays the one reported.
     */
    public static void removeOutput(String output, Exception failure) {
        try {
            Path path = new Path(output);
            path.getFileSystem().delete(path, true);
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The engine a tool reads and writes state with: the job's backend. A savepoint of either backend is in Flink's
     * canonical format and restores on either, so this only decides where the tool keeps state while it works (RocksDB
     * spills to local disk).
     */
    public static StateBackend backendOf(StateBackendType type) {
        return type == StateBackendType.HASHMAP ? new HashMapStateBackend() : new EmbeddedRocksDBStateBackend();
    }
}
