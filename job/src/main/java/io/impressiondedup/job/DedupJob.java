package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.RocksDbDefaults;
import io.impressiondedup.job.config.StateBackendType;
import io.impressiondedup.job.io.checks.BrokerFindings;
import io.impressiondedup.job.io.checks.KafkaChecks;
import io.impressiondedup.job.io.checks.SchemaRegistryChecks;
import io.impressiondedup.job.io.checks.OpenTransactionsUnderPrefix;
import io.impressiondedup.job.io.checks.TopicMaxMessageBytes;
import io.impressiondedup.job.io.eventtime.ImpressionWatermarks;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.job.io.kafka.ResumableBoundedKafkaSource;
import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.stats.StatsRow;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka-to-Kafka impression dedup job.
 *
 * <pre>
 *   Kafka input --parse--> route --keyBy(shard)--> dedup --> Kafka output
 *                             \                       \--late--> Kafka dead letters
 *                              \--malformed, oversized, future --/
 * </pre>
 * With {@code --stats-topic}, the reconciliation rows too ({@link ReconciliationStats}); without it, not one
 * operator more.
 *
 * {@link #main} parses the options, checks them against the brokers, and runs {@link #defineWorkflow}
 * with Kafka; the local run and the tests call the same {@link #defineWorkflow} with the same Kafka
 * connectors (or their own around them), so they exercise the production topology.
 */
public final class DedupJob {

    private static final Logger LOG = LoggerFactory.getLogger(DedupJob.class);

    private DedupJob() {}

    public static void main(String[] args) throws Exception {
        if (OptionSources.helpRequested(args)) {
            System.out.print(help());
            return;
        }
        // Flink's configuration as the client or the JobManager running main() has it: config.yaml, -D,
        // and the REST run request's flinkConfiguration. The job's options may be set there as dedup.<name>.
        ReadableConfig flinkConfiguration = StreamExecutionEnvironment.getExecutionEnvironment().getConfiguration();
        DedupJobConfig config = DedupJobConfig.fromSources(args, flinkConfiguration);
        LOG.info("Impression dedup starting with\n{}", config.describe());
        JobExecutionResult result = runJob(config, flinkConfiguration);
        if (!result.isJobExecutionResult()) {
            // Detached (flink run --detached, REST POST /jars/:id/run): the job is submitted and runs on
            // the cluster; it has no result here. Failing now would make the caller retry, starting a
            // second job with the same transactional ids.
            String submitted = detachedSubmissionMessage(result.getJobID(), config);
            LOG.info(submitted);
            System.out.println(submitted);
            return;
        }
        if (config.bounded()) {
            String summary = Accounting.summary(result.getAllAccumulatorResults());
            LOG.info("Finished: {}", summary);
            System.out.println("Finished: " + summary);
        }
    }

    /** The job's {@code --help}: every option with its default and description. */
    static String help() {
        return OptionSources.help("flink run dedup-job.jar [--name value ...]", "Deduplicates JSON ad impressions from a Kafka topic into"
                + " another, exactly once, with time-bucketed Bloom filters in Flink keyed state. Every option can also be set in"
                + " Flink's configuration (config.yaml, -D, a FlinkDeployment's flinkConfiguration) as "
                + DedupJobOptions.FLINK_CONFIG_PREFIX + "<name>; program arguments win.", DedupJobOptions.ALL, true);
    }

    /** What a detached submission reports: the job id, and where its account will be. */
    static String detachedSubmissionMessage(JobID jobId, DedupJobConfig config) {
        return "Submitted job " + jobId + " (" + jobName(config) + ") detached; it runs on the cluster"
                + (config.bounded() ? " until it has read the input up to the end offsets it found at start (--bounded true)" : "")
                + ". Its account, input = unique + duplicates + late + dead-lettered, is live on the JobManager's REST API at"
                + " GET /jobs/" + jobId + "/accumulators and final there once the job is FINISHED (kept for"
                + " jobstore.expiration-time, and by the History Server if jobmanager.archive.fs.dir is set); in the TaskManager"
                + " logs, every parse and dedup subtask logs its share at each completed checkpoint, the job's final one included.";
    }

    /**
     * Checks the options against the brokers, then runs the job on Kafka. Attached, until it ends
     * (bounded) or is stopped, with its accumulators; detached ({@code flink run --detached}, the REST
     * API), it returns once the job is submitted, with a result that only holds the job id ({@link
     * JobExecutionResult#isJobExecutionResult()} false). {@code flinkConfiguration} is Flink's
     * configuration as {@code main} sees it. Every question to the brokers goes through one admin client
     * ({@link KafkaChecks#atSubmission}): the checks, the dead-letter topic's record limit the sink is built
     * with, and, for a job started without a savepoint or checkpoint to restore, the open transactions under
     * its transactional-id prefix, which it warns of ({@link OpenTransactionsUnderPrefix}). A schema registry the Avro
     * input reads is asked too ({@link SchemaRegistryChecks}).
     */
    public static JobExecutionResult runJob(DedupJobConfig config, ReadableConfig flinkConfiguration) throws Exception {
        BrokerFindings brokers = KafkaChecks.atSubmission(config, flinkConfiguration);
        brokers.openTransactions().logTo(LOG);
        SchemaRegistryChecks.atSubmission(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConfiguration(config, flinkConfiguration));
        config.parallelism().ifPresent(env::setParallelism);
        defineWorkflow(env, config, kafkaSource(config), kafkaSinks(config, brokers.deadLetterTopicMaxMessageBytes()));
        return env.execute(jobName(config));
    }

    public static String jobName(DedupJobConfig config) {
        return "Impression dedup: " + config.inputTopic() + " -> " + config.outputTopic();
    }

    /**
     * The job's Flink settings on a cluster whose configuration sets none of them:
     * {@link #flinkConfiguration(DedupJobConfig, ReadableConfig)} with an empty cluster configuration.
     */
    public static Configuration flinkConfiguration(DedupJobConfig config) {
        return flinkConfiguration(config, new Configuration());
    }

    /**
     * The job's Flink settings: state backend (RocksDB with incremental checkpoints by default, and the
     * RocksDB options of {@link RocksDbDefaults} where {@code cluster}, the configuration {@code main}
     * sees, does not set them), checkpointing, and generic types disabled, so that no record ever
     * silently falls back to Kryo.
     */
    public static Configuration flinkConfiguration(DedupJobConfig config, ReadableConfig cluster) {
        Configuration conf = new Configuration();
        if (config.stateBackend() == StateBackendType.ROCKSDB) {
            RocksDbDefaults.applyTo(conf, cluster);
        }
        conf.set(StateBackendOptions.STATE_BACKEND, config.stateBackend().toString());
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, config.stateBackend() == StateBackendType.ROCKSDB);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        config.checkpointDir().ifPresent(dir -> conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir));
        conf.set(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION, ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(PipelineOptions.MAX_PARALLELISM, config.maxParallelism());
        return conf;
    }

    /**
     * Parsed records from the Kafka input topic, with event time and per-partition watermarks. A bounded
     * run finishes also when resumed from a savepoint ({@link ResumableBoundedKafkaSource}).
     */
    public static ImpressionSource kafkaSource(DedupJobConfig config) {
        return env -> env.fromSource(ResumableBoundedKafkaSource.of(KafkaConnectors.source(config)),
                        ImpressionWatermarks.strategy(config.maxOutOfOrderness(), config.idleness()),
                        KafkaConnectors.SOURCE_NAME, ParsedRecord.TYPE_INFO)
                .uid(KafkaConnectors.SOURCE_UID);
    }

    /**
     * {@link #kafkaSinks(DedupJobConfig, int)} for a job built without the submission checks: reads the
     * dead-letter topic's record limit from the brokers now.
     */
    public static DedupSinks kafkaSinks(DedupJobConfig config) {
        return kafkaSinks(config, TopicMaxMessageBytes.ofDeadLetterTopic(config));
    }

    /**
     * The output, dead-letter and (if configured) duplicates and stats topics, with the configured delivery
     * guarantee; the dead letters sized for a topic that takes records of {@code deadLetterTopicMaxMessageBytes}.
     */
    public static DedupSinks kafkaSinks(DedupJobConfig config, int deadLetterTopicMaxMessageBytes) {
        return new DedupSinks() {
            @Override
            public void attach(DataStream<Impression> unique, DataStream<DeadLetter> deadLetters, DataStream<Impression> duplicates) {
                unique.sinkTo(KafkaConnectors.outputSink(config)).uid(KafkaConnectors.OUTPUT_SINK_UID).name("Kafka output");
                deadLetters.sinkTo(KafkaConnectors.deadLetterSink(config, deadLetterTopicMaxMessageBytes)).uid(KafkaConnectors.DEAD_LETTER_SINK_UID).name("Kafka dead letters");
                if (duplicates != null) {
                    duplicates.sinkTo(KafkaConnectors.duplicatesSink(config, config.duplicatesTopic().orElseThrow()))
                            .uid(KafkaConnectors.DUPLICATES_SINK_UID).name("Kafka duplicates (audit)");
                }
            }

            @Override
            public void attachStats(DataStream<StatsRow> rows) {
                rows.sinkTo(KafkaConnectors.statsSink(config, config.statsTopic().orElseThrow()))
                        .uid(KafkaConnectors.STATS_SINK_UID).name(KafkaConnectors.STATS_SINK_NAME);
            }
        };
    }

    /** The dedup topology between a source of parsed records and the sinks; every stateful operator has a stable uid. */
    public static void defineWorkflow(StreamExecutionEnvironment env, DedupJobConfig config, ImpressionSource source, DedupSinks sinks) {
        defineWorkflow(env, config, source, dedupStage(), sinks);
    }

    /** {@link #defineWorkflow(StreamExecutionEnvironment, DedupJobConfig, ImpressionSource, DedupSinks)} with another dedup stage. */
    public static void defineWorkflow(
            StreamExecutionEnvironment env, DedupJobConfig config, ImpressionSource source, DedupStage dedup, DedupSinks sinks) {
        env.setMaxParallelism(config.maxParallelism());
        LongestSafeOutage longestSafeOutage = LongestSafeOutage.of(config);
        LOG.info(longestSafeOutage.logLine());
        SingleOutputStreamOperator<Impression> impressions = source.create(env)
                .process(new RouteParsedRecords(longestSafeOutage), Impression.TYPE_INFO)
                .uid(RouteParsedRecords.UID)
                .name(RouteParsedRecords.NAME);
        DedupStage.Deduplicated result = dedup.attach(impressions, config);
        DataStream<DeadLetter> deadLetters = impressions.getSideOutput(RouteParsedRecords.DEAD_LETTERS);
        if (result.late() != null) {
            deadLetters = deadLetters.union(result.late());
        }
        sinks.attach(result.unique(), deadLetters, config.duplicatesTopic().isPresent() ? result.duplicates() : null);
        if (config.statsTopic().isPresent()) {
            if (result.outcomes() == null) {
                throw new IllegalStateException("--" + DedupJobOptions.STATS_TOPIC.key() + " is set, but this dedup stage reports no outcomes");
            }
            sinks.attachStats(ReconciliationStats.rows(result.outcomes(), impressions.getSideOutput(RouteParsedRecords.DEAD_LETTERS), config));
        }
    }

    /** The job's dedup stage: records keyed by shard, time-bucketed state of either --state-format (Bloom filters or fingerprints). */
    public static DedupStage dedupStage() {
        return (impressions, config) -> {
            ShardKeySelector shardKeys = new ShardKeySelector(config.dedupSettings().plan().shards(), config.maxParallelism());
            SingleOutputStreamOperator<Impression> unique = impressions
                    .keyBy(shardKeys, Types.INT)
                    .transform(DedupOperator.NAME, Impression.TYPE_INFO, new DedupOperator(config.dedupSettings()))
                    .uid(DedupOperator.UID)
                    .name(DedupOperator.NAME);
            // A share of the slot's managed memory for the page caches' off-heap tier, beside RocksDB's (DedupOperator).
            unique.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(DedupOperator.MANAGED_MEMORY_USE_CASE, 1);
            return new DedupStage.Deduplicated(unique, unique.getSideOutput(DedupOperator.LATE), unique.getSideOutput(DedupOperator.DUPLICATES),
                    config.statsTopic().isPresent() ? unique.getSideOutput(DedupOperator.OUTCOMES) : null);
        };
    }
}
