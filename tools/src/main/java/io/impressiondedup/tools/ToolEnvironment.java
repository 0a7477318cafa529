package io.impressiondedup.tools;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Flink the tools run on: a local environment in the tool's own JVM, in batch mode (a savepoint is
 * read and written as bounded data). Its temporary files go where {@code java.io.tmpdir} points. A task that fails
 * fails the tool: nothing a retry could change (a savepoint that cannot be read, state that cannot be reshaped), and
 * Flink's default for a job without checkpoints would restart it again and again.
 */
public final class ToolEnvironment {

    private ToolEnvironment() {}

    public static StreamExecutionEnvironment create(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // never collide with a cluster on this machine
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        return env;
    }
}
