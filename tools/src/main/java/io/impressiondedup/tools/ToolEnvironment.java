package io.impressiondedup.tools;

import io.impressiondedup.tools.savepoint.StateWriterFailure;
import io.impressiondedup.tools.savepoint.StateWriterReports;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Flink the tools run on: a local environment in the tool's own JVM, in batch mode (a savepoint is
 * read and written as bounded data). Its temporary files go where {@code java.io.tmpdir} points. A task that fails
 * fails the tool: nothing a retry could change (a savepoint that cannot be read, state that cannot be reshaped), and
 * Flink's default for a job without checkpoints would restart it again and again.
 *
 * <p>A job that writes a savepoint is run by {@link #execute}, never by {@code env.execute}: Flink drops the failure
 * of a state writer and then waits forever or writes an incomplete savepoint ({@link StateWriterReports} says how),
 * so {@link #execute} also waits for the writers' own reports and fails the run with the first.
 */
public final class ToolEnvironment {

    /** The global job parameter that names a run, for its state writers' reports. */
    private static final String RUN = "dedup-tools.run";

    private ToolEnvironment() {}

    public static StreamExecutionEnvironment create(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // never collide with a cluster on this machine
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(PipelineOptions.GLOBAL_JOB_PARAMETERS, Map.of(RUN, UUID.randomUUID().toString()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        return env;
    }

    /** The run {@code env} was created for ({@link #create}); {@code null} for an environment made elsewhere. */
    public static String runOf(StreamExecutionEnvironment env) {
        return env.getConfig().getGlobalJobParameters().toMap().get(RUN);
    }

    /** Runs the job defined in {@code env}, failing with a state writer's failure if one is reported. */
    public static JobExecutionResult execute(StreamExecutionEnvironment env, String jobName) throws Exception {
        return execute(env, jobName, null, job -> {});
    }

    /**
     * Runs the job defined in {@code env} and returns its result; calls {@code progress} every {@code progressInterval}
     * ({@code null}: never) while it runs. The first of these ends the wait: the job ends, or a state writer reports
     * that it failed ({@link StateWriterReports}); then the job is cancelled and its end awaited (Flink bounds a task's
     * cancellation itself). A writer's {@link StateWriterFailure} is thrown whenever one was reported, also after a job
     * that ended well: Flink finishes a job whose writer failed with few elements left, without that writer's state.
     * Otherwise the job's own failure is thrown as Flink reports it.
     */
    public static JobExecutionResult execute(StreamExecutionEnvironment env, String jobName, Duration progressInterval,
            Consumer<JobClient> progress) throws Exception {
        String run = runOf(env);
        if (run == null) {
            throw new IllegalArgumentException("The environment of job '" + jobName + "' was not made by ToolEnvironment.create");
        }
        try (StateWriterReports.Watch writers = StateWriterReports.watch(run)) {
            JobClient job = env.executeAsync(jobName);
            CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
            CompletableFuture<Object> first = CompletableFuture.anyOf(result, writers.failure());
            while (!first.isDone()) {
                try {
                    if (progressInterval == null) {
                        first.get();
                    } else {
                        first.get(progressInterval.toMillis(), TimeUnit.MILLISECONDS);
                    }
                } catch (TimeoutException stillRunning) {
                    progress.accept(job);
                } catch (ExecutionException jobFailed) {
                    break; // thrown below, by result
                }
            }
            if (!result.isDone()) { // a writer failed; its task may wait forever for it to take more elements
                job.cancel().get();
                try {
                    result.get();
                } catch (ExecutionException cancelled) {
                    // the failure to report is the writer's
                }
            }
            if (writers.failure().isDone()) {
                throw writers.failure().get();
            }
            try {
                return result.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }
}
