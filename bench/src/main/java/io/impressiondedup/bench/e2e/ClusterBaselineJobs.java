package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.function.BiConsumer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The baselines of the headline benchmark as jobs submitted to a session cluster over REST, like the
 * dedup job itself (bench/run-cluster-headline.sh): each entry class parses the dedup job's own
 * arguments ({@link DedupJobConfig#parse}), so the same source settings, exactly-once sink, checkpoint
 * interval and parallelism apply, and runs with {@link DedupJob#flinkConfiguration} (the job's
 * checkpointing and state settings). The jar is cluster-baselines.jar: dedup-job.jar plus these classes.
 */
public final class ClusterBaselineJobs {

    private ClusterBaselineJobs() {}

    static void run(String name, String[] args, BiConsumer<StreamExecutionEnvironment, DedupJobConfig> workflow) throws Exception {
        DedupJobConfig config = DedupJobConfig.parse(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                DedupJob.flinkConfiguration(config, StreamExecutionEnvironment.getExecutionEnvironment().getConfiguration()));
        config.parallelism().ifPresent(env::setParallelism);
        workflow.accept(env, config);
        env.execute(name + ": " + config.inputTopic() + " -> " + config.outputTopic());
    }

    /** Entry class of the byte pass-through ({@link BytePassThrough#defineWorkflow}). */
    public static final class BytePassThroughJob {
        private BytePassThroughJob() {}

        public static void main(String[] args) throws Exception {
            run("Byte pass-through", args, BytePassThrough::defineWorkflow);
        }
    }

    /**
     * Entry class of the parsing pass-through: the dedup job's whole topology (source with event time
     * and watermarks, parsing, routing, keyBy shard, output and dead-letter sinks) with the dedup
     * operator replaced by an identity map on the same keyed stream. Its gap to the dedup job is what
     * the state costs; its gap to the keyed byte pass-through is what parsing and the envelope cost.
     */
    public static final class ParsePassThroughJob {
        private ParsePassThroughJob() {}

        public static void main(String[] args) throws Exception {
            run("Parse pass-through", args, (env, config) ->
                    DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), ParsePassThrough.stage(), DedupJob.kafkaSinks(config)));
        }
    }

    /**
     * Entry class of the exact peer: the job's topology with exact keyed state in place of the Bloom
     * filters, a {@code ValueState} flag per (request id, ad id) with the retention as its TTL
     * ({@link ExactKeyedStage}), what a team writes first.
     */
    public static final class ExactKeyedStateJob {
        private ExactKeyedStateJob() {}

        public static void main(String[] args) throws Exception {
            run("Exact keyed state", args, (env, config) -> DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config),
                    ExactKeyedStage.of(TimeBuckets.DEFAULT_RETENTION), DedupJob.kafkaSinks(config)));
        }
    }

    /**
     * Entry class of the Flink SQL peer: the job's topology with Flink SQL's keep-first deduplication on
     * (request id, ad id) in place of the Bloom filters, the job's retention as the query's state TTL
     * ({@link SqlKeepFirstStage}). It needs the Table API and the planner on the cluster's class path, as
     * a Flink distribution's lib/ has them (deploy/cluster/pom.xml's profile {@code table}).
     */
    public static final class SqlKeepFirstJob {
        private SqlKeepFirstJob() {}

        public static void main(String[] args) throws Exception {
            run("Flink SQL keep-first", args, (env, config) -> DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config),
                    SqlKeepFirstStage.of(config.dedupSettings().plan().timeBuckets().retention()), DedupJob.kafkaSinks(config)));
        }
    }

    /** Entry class of the keyed byte pass-through ({@link BytePassThrough#defineKeyedWorkflow}). */
    public static final class KeyedPassThroughJob {
        private KeyedPassThroughJob() {}

        public static void main(String[] args) throws Exception {
            run("Keyed pass-through", args, BytePassThrough::defineKeyedWorkflow);
        }
    }
}
