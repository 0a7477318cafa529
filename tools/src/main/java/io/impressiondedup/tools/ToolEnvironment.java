package io.impressiondedup.tools;

import io.impressiondedup.tools.savepoint.StateFunctionFailure;
import io.impressiondedup.tools.savepoint.StateFunctionReports;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Reference;

/**
 * The Flink the tools run on: a local environment in the tool's own JVM, in batch mode (a savepoint is
 * read and written as bounded data). Its temporary files go where {@code java.io.tmpdir} points. A task that fails
 * fails the tool: nothing a retry could change (a savepoint that cannot be read, state that cannot be reshaped), and
 * Flink's default for a job without checkpoints would restart it again and again.
 *
 * <p>Every job of a tool is run by {@link #execute} or {@link #collect}, never by {@code env.execute} or {@code
 * executeAndCollect}: Flink drops the failure of a state writer and then waits forever or writes an incomplete
 * savepoint, and may name another failure than a state reader's as the job's cause ({@link StateFunctionReports} says
 * how), so these also wait for the readers' and writers' own reports and fail the run with the first.
 *
 * <p>Each job runs on a MiniCluster of its own, as a local environment's do, but every MiniCluster of the JVM borrows
 * one RPC system ({@link SharedRpcSystem}): Flink loads its RPC system (Pekko and Scala) into a class loader of its
 * own, from a jar it copies to the temporary directory, and a MiniCluster that loads its own spends most of its start
 * loading those classes and parsing Pekko's configuration anew. A verb runs several jobs (a savepoint's metadata, its
 * state, the savepoint written), so each would pay that again.
 */
public final class ToolEnvironment {

    /** The global job parameter that names a run, for its state readers' and writers' reports. */
    private static final String RUN = "dedup-tools.run";

    /** The MiniClusters started and not yet known to be shut down. */
    private static final Set<MiniCluster> CLUSTERS = ConcurrentHashMap.newKeySet();

    private ToolEnvironment() {}

    public static StreamExecutionEnvironment create(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // never collide with a cluster on this machine
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // Not the adaptive batch scheduler, batch mode's default: it may give a keyed input's subtask other key groups
        // than Flink's even key-group ranges, to balance skewed data, while the State Processor API's writers assume those
        // ranges ("Key group 91 is not in KeyGroupRange{0, 63}" for a history with few request ids of many ad ids).
        conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Default);
        conf.set(PipelineOptions.GLOBAL_JOB_PARAMETERS, Map.of(RUN, UUID.randomUUID().toString()));
        // What a local environment sets (StreamExecutionEnvironment.createLocalEnvironment), with the shared RPC system.
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        conf.set(DeploymentOptions.TARGET, SharedRpcSystem.EXECUTOR);
        conf.set(DeploymentOptions.ATTACHED, true);
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(SharedRpcSystem.EXECUTORS, conf, ToolEnvironment.class.getClassLoader());
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        return env;
    }

    /**
     * Waits until every MiniCluster the tools started has shut down, at most {@code timeout} in all; returns whether they
     * all did. A job's MiniCluster shuts down after its result is known, on a thread of its own; a JVM that exits meanwhile
     * runs the JVM shutdown hook of each actor system still up, and that hook loads classes from the RPC system's class
     * loader, which the RPC system's own hook closes at the same moment ("NoClassDefFoundError:
     * scala/collection/convert/Wrappers$MutableSetWrapper" after a 50M-row bootstrap). With every MiniCluster down, no
     * actor system's hook is left to run. A cluster not yet closing is closed ({@link MiniCluster#closeAsync} gives one
     * already closing its termination future), so this is for when the tool's jobs are done: at its exit.
     */
    public static boolean awaitShutdown(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (MiniCluster cluster : CLUSTERS) {
            try {
                cluster.closeAsync().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                CLUSTERS.remove(cluster);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | TimeoutException notDown) {
                return false;
            }
        }
        return true;
    }

    /** How many MiniClusters the tools started are not yet known to be shut down. */
    static int clustersNotShutDown() {
        return CLUSTERS.size();
    }

    /** The run {@code env} was created for ({@link #create}); {@code null} for an environment made elsewhere. */
    public static String runOf(StreamExecutionEnvironment env) {
        return env.getConfig().getGlobalJobParameters().toMap().get(RUN);
    }

    /** Runs the job defined in {@code env}, failing with a state function's failure if one is reported. */
    public static JobExecutionResult execute(StreamExecutionEnvironment env, String jobName) throws Exception {
        return execute(env, jobName, null, (job, written) -> {}).result();
    }

    /** What a run reports while it runs: its job, and the units its state writers have written so far. */
    @FunctionalInterface
    public interface Progress {
        void report(JobClient job, long written);
    }

    /** A finished run: its job's result, and the units its state writers wrote ({@code DedupStateWriter#weight}). */
    public record Run(JobExecutionResult result, long written) {}

    /**
     * Runs the job defined in {@code env} and returns its result and what its state writers wrote; calls {@code
     * progress} every {@code progressInterval} ({@code null}: never) while it runs. The first of these ends the wait:
     * the job ends, or a state reader or writer reports that it failed ({@link StateFunctionReports}); then the job is
     * cancelled and its end awaited (Flink bounds a task's cancellation itself). A reported {@link
     * StateFunctionFailure} is thrown whenever there is one, also after a job that ended well: Flink finishes a job
     * whose writer failed with few elements left, without that writer's state. Otherwise the job's own failure is
     * thrown as Flink reports it.
     */
    public static Run execute(StreamExecutionEnvironment env, String jobName, Duration progressInterval,
            Progress progress) throws Exception {
        try (StateFunctionReports.Watch functions = StateFunctionReports.watch(requireRunOf(env, jobName))) {
            JobClient job = env.executeAsync(jobName);
            CompletableFuture<JobExecutionResult> result = job.getJobExecutionResult();
            CompletableFuture<Object> first = CompletableFuture.anyOf(result, functions.failure());
            while (!first.isDone()) {
                try {
                    if (progressInterval == null) {
                        first.get();
                    } else {
                        first.get(progressInterval.toMillis(), TimeUnit.MILLISECONDS);
                    }
                } catch (TimeoutException stillRunning) {
                    progress.report(job, functions.written());
                } catch (ExecutionException jobFailed) {
                    break; // thrown below
                }
            }
            if (!result.isDone()) { // a function failed; a writer's task may wait forever for it to take more elements
                try {
                    job.cancel().get();
                } catch (ExecutionException endedMeanwhile) {
                    // the job ended on its own since: its result tells
                }
                try {
                    result.get();
                } catch (ExecutionException cancelled) {
                    // the failure to report is the function's
                }
            }
            throwReported(functions, null);
            try {
                return new Run(result.get(), functions.written());
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }

    /**
     * Runs the job that ends in {@code results} (a stream of {@code env}, whose other sinks run too) and gives {@code
     * each} every element, in the order they come. A failure is thrown as {@link #execute} throws it: a reader's or
     * writer's own report first, else what the job's result iterator says.
     */
    public static <T> void collect(DataStream<T> results, String jobName, Consumer<T> each) throws Exception {
        StreamExecutionEnvironment env = results.getExecutionEnvironment();
        try (StateFunctionReports.Watch functions = StateFunctionReports.watch(requireRunOf(env, jobName));
                CloseableIterator<T> elements = results.collectAsync()) {
            env.executeAsync(jobName);
            try {
                while (elements.hasNext()) {
                    each.accept(elements.next());
                }
            } catch (RuntimeException jobFailed) {
                throwReported(functions, jobFailed);
                throw jobFailed;
            }
            throwReported(functions, null);
        }
    }

    private static void throwReported(StateFunctionReports.Watch functions, Exception flinksOwn) throws StateFunctionFailure {
        StateFunctionFailure reported = functions.failure().getNow(null);
        if (reported != null) {
            if (flinksOwn != null) {
                reported.addSuppressed(flinksOwn);
            }
            throw reported;
        }
    }

    private static String requireRunOf(StreamExecutionEnvironment env, String jobName) {
        String run = runOf(env);
        if (run == null) {
            throw new IllegalArgumentException("The environment of job '" + jobName + "' was not made by ToolEnvironment.create");
        }
        return run;
    }

    /**
     * The RPC system the tools' MiniClusters borrow: loaded with the first environment, closed (its class loader and
     * the jar copy in the temporary directory) when the JVM exits, after the MiniClusters still shutting down have
     * ({@link #awaitShutdown}). A MiniCluster given a borrowed reference starts and stops its own RPC services on it and
     * leaves it open.
     */
    private static final class SharedRpcSystem {

        static final String EXECUTOR = "local-with-shared-rpc-system";

        /** How long the JVM's exit waits for MiniClusters still shutting down before it closes the RPC system anyway. */
        private static final Duration SHUTDOWN_AT_EXIT = Duration.ofSeconds(30);

        private static final RpcSystem RPC_SYSTEM = load();

        static final PipelineExecutorServiceLoader EXECUTORS = new PipelineExecutorServiceLoader() {
            @Override
            public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
                return FACTORY;
            }

            @Override
            public Stream<String> getExecutorNames() {
                return Stream.of(EXECUTOR);
            }
        };

        private static final PipelineExecutorFactory FACTORY = new PipelineExecutorFactory() {
            @Override
            public String getName() {
                return EXECUTOR;
            }

            @Override
            public boolean isCompatibleWith(Configuration configuration) {
                return EXECUTOR.equals(configuration.get(DeploymentOptions.TARGET));
            }

            @Override
            public PipelineExecutor getExecutor(Configuration configuration) {
                return LocalExecutor.createWithFactory(configuration, cluster -> {
                    MiniCluster miniCluster = new MiniCluster(cluster, () -> Reference.borrowed(RPC_SYSTEM));
                    CLUSTERS.add(miniCluster);
                    return miniCluster;
                });
            }
        };

        private static RpcSystem load() {
            RpcSystem rpcSystem = RpcSystem.load();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                awaitShutdown(SHUTDOWN_AT_EXIT);
                rpcSystem.close();
            }, "dedup-tools-rpc-system-close"));
            return rpcSystem;
        }
    }
}
