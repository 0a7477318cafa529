package io.impressiondedup.tools.bootstrap;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.job.config.FingerprintSecretOption;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ParserOptions;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.config.PlanOptions;
import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.tools.ToolArguments;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.ToolOptions;
import io.impressiondedup.tools.VerbRun;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.Path;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code bootstrap}: writes a savepoint from a history of impressions, so that a job started from it
 * already knows the last retention of impressions ("we lost our checkpoints", "we move from Redis").
 *
 * <p>The savepoint is the state the job would have built from the same impressions with the same plan
 * options: same shards, filter geometry, fingerprints (the secret of {@code --fingerprint-secret-file}, whose
 * check value is written as the job writes it) and buckets, inserted by the operator's own code ({@link
 * HistoryStateWriter}). Rows whose bucket the job would already have dropped at {@code --as-of} (default: the
 * newest timestamp of the history, read in a first pass) are skipped and counted, so the savepoint holds no
 * bucket the restored job would drop at once. No lateness watermark is written ({@link HistoryStateWriter}).
 *
 * <p><b>Bad rows are skipped, counted and reported</b> (the first {@value BootstrapAccount#MAX_BAD_SAMPLES} with
 * their line number, or topic/partition/offset), and the savepoint is written: a row that cannot be read is an
 * impression the state will not know, exactly as if the job had never seen it (its copies pass once), and no
 * rerun of a large export makes it readable; the user sees how many and where, and can fix and rerun. A
 * history of which no row could be read fails the run (exit 1, nothing written kept): it is the wrong file or
 * the wrong format, not a history with a few bad rows.
 */
public final class BootstrapCommand {

    static final String USAGE = "bootstrap (--from-file <rows.csv> | --from-topic <topic> --bootstrap-servers <host:port>)"
            + " --output <savepoint dir> --capacity <n> [--name value ...]";
    /** How often progress is printed on stderr. */
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(3);

    /** The options {@code bootstrap} takes: its own, the tools', and the job's that decide the state or parse the history. */
    static final List<ConfigOption<?>> ACCEPTED = accepted();

    private BootstrapCommand() {}

    private static List<ConfigOption<?>> accepted() {
        List<ConfigOption<?>> accepted = new ArrayList<>(List.of(BootstrapOptions.FROM_FILE, BootstrapOptions.FROM_TOPIC,
                BootstrapOptions.AS_OF, ToolOptions.OUTPUT, ToolOptions.PARALLELISM, ToolOptions.VERBOSE));
        accepted.addAll(PLAN);
        accepted.remove(PAGE_CACHE_BYTES); // the job's heap cache: no part of the state
        accepted.addAll(List.of(FINGERPRINT_SECRET_FILE, BOOTSTRAP_SERVERS, REQUEST_ID_FIELD, AD_ID_FIELD, TIMESTAMP_FIELD, DEDUP_KEY,
                MAX_RECORD_BYTES, MAX_HEADERS, MAX_FUTURE_SKEW, MIN_EVENT_TIME, INPUT_FORMAT));
        accepted.addAll(AVRO_OPTIONS); // --from-topic parses the history with the job's parser of its input format
        return List.copyOf(accepted);
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("bootstrap", USAGE, "Writes a savepoint of the dedup job from a history of impressions (a file of rows or"
                + " a Kafka topic), as the job with the same plan options would have built it; start the job from it.", ACCEPTED, true,
                args, out, err, Settings::parse, BootstrapCommand::bootstrap);
    }

    private static int bootstrap(Settings settings, PrintStream out, PrintStream err) throws Exception {
        HistorySource history = settings.history();
        DedupPlan plan = settings.plan;
        err.println("bootstrap: reading " + history.describe() + " into " + plan.shards() + " shards (max parallelism "
                + settings.maxParallelism + ")");
        HistoryFileParts parts = history.isFile() ? history.scanFile(settings.parallelism, settings.asOf == null) : null;
        long asOf;
        if (settings.asOf != null) {
            asOf = settings.asOf;
        } else {
            Long newest = history.isFile() ? parts.newest() : newestInTopic(history, settings);
            if (newest == null) {
                err.println("bootstrap: the history holds no impression (" + history.describe() + "); nothing written");
                return 1;
            }
            asOf = newest;
            err.println("bootstrap: --as-of " + Instant.ofEpochMilli(asOf) + " (the newest timestamp in the history)");
        }
        HistoryHorizon horizon = new HistoryHorizon(plan.timeBuckets(), asOf);

        StreamExecutionEnvironment env = ToolEnvironment.create(settings.parallelism);
        // No copy of each line and impression between the chained reader, parser and batcher: none keeps an object it
        // is given (the batcher copies an impression's fields into its batch), and the copies were a third of their time.
        env.getConfig().enableObjectReuse();
        ShardKeys shardKeys = new ShardKeys(plan.shards(), settings.maxParallelism);
        SavepointWriter.newSavepoint(env, ToolOptions.backendOf(settings.stateBackend), settings.maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.transformation(
                        history.impressions(env, plan.shards(), horizon, parts)
                                .transform("Batch by shard", Types.POJO(HistoryBatch.class), new ShardBatcher(plan.shards())),
                        shardKeys, batch -> batch.shard, new HistoryStateWriter(plan, settings.fingerprintCheck, settings.dedupKey)))
                .write(settings.output);
        ToolEnvironment.Run run;
        try {
            run = ToolEnvironment.execute(env, "dedup-tools bootstrap", PROGRESS_INTERVAL,
                    (job, written) -> printProgress(job, written, err));
        } catch (Exception e) {
            ToolOptions.removeOutput(settings.output, e);
            throw e;
        }
        BootstrapAccount account = new BootstrapAccount(run.result().getAllAccumulatorResults(), insertedIn(settings));
        err.println(account.progress(run.written()));
        if (parts != null && account.count(BootstrapAccount.ROWS) != parts.rows()) {
            Path output = new Path(settings.output);
            output.getFileSystem().delete(output, true);
            err.println("bootstrap: the job read " + account.count(BootstrapAccount.ROWS) + " rows of " + settings.file
                    + ", whose scan found " + parts.rows() + " (did the file change meanwhile?). The savepoint was removed.");
            return 1;
        }
        out.print(account.summary(settings.output, horizon));
        List<String> bad = account.badSamples();
        if (!bad.isEmpty()) {
            out.println("  bad rows" + (account.count(BootstrapAccount.BAD) > bad.size() ? " (first " + bad.size() + ")" : "") + ":");
            bad.forEach(line -> out.println("    " + line));
        }
        if (account.count(BootstrapAccount.BAD) > 0 && account.count(BootstrapAccount.BAD) == account.count(BootstrapAccount.ROWS)) {
            Path output = new Path(settings.output);
            output.getFileSystem().delete(output, true);
            err.println("bootstrap: no row of the history could be read (all " + account.count(BootstrapAccount.ROWS)
                    + " bad): is it a file of requestId,adId,timestamp rows? The savepoint was removed.");
            return 1;
        }
        return 0;
    }

    /**
     * The first pass over a topic: the newest event time of its impressions, or {@code null} if it has none, by a Flink
     * job (a file's is read by its scan, {@link HistorySource#scanFile}). Each subtask keeps the newest of what it reads
     * and gives it at the end of its input; a {@code keyBy} to one key before a {@code reduce} sorted every record's time
     * first in batch execution (17 of the 62 s of a 10M-record topic's bootstrap).
     */
    private static Long newestInTopic(HistorySource history, Settings settings) throws Exception {
        StreamExecutionEnvironment env = ToolEnvironment.create(settings.parallelism);
        List<Long> newest = new ArrayList<>();
        ToolEnvironment.collect(history.impressions(env, settings.plan.shards(), null, null)
                .map(impression -> impression.eventTime).returns(Types.LONG)
                .fullWindowPartition()
                .reduce(Math::max), "dedup-tools bootstrap: newest timestamp", newest::add);
        return newest.stream().max(Long::compare).orElse(null);
    }

    /** The impressions inserted, read back from the bucket directories of the savepoint written (not its pages). */
    private static long insertedIn(Settings settings) throws Exception {
        StreamExecutionEnvironment env = ToolEnvironment.create(settings.parallelism);
        long[] inserted = {0};
        ToolEnvironment.collect(DedupSavepoint.keyedState(settings.output, env, ToolOptions.backendOf(settings.stateBackend),
                new DirectoryInsertCount(), Types.LONG), "dedup-tools bootstrap: count", count -> inserted[0] += count);
        return inserted[0];
    }

    private static void printProgress(JobClient job, long written, PrintStream err) {
        try {
            err.println(new BootstrapAccount(job.getAccumulators().get(10, TimeUnit.SECONDS), -1).progress(written));
        } catch (Exception e) {
            // The job may be finishing: the next round or the result tells.
        }
    }

    /** The command line, typed and checked; every failure names the option. */
    static final class Settings {
        final String file;
        final String topic;
        final String output;
        final int parallelism;
        final DedupPlan plan;
        final int maxParallelism;
        final io.impressiondedup.job.config.StateBackendType stateBackend;
        final FingerprintSecretFile secret;
        final long fingerprintCheck;
        /** The key a topic's records are read under; {@code null} for a file, whose rows carry no field names. */
        final String dedupKey;
        final Long asOf;
        final Configuration options;
        final Map<String, String> kafkaProperties;

        private Settings(Configuration options, Map<String, String> kafkaProperties) {
            this.options = options;
            this.kafkaProperties = kafkaProperties;
            file = options.get(BootstrapOptions.FROM_FILE);
            topic = options.get(BootstrapOptions.FROM_TOPIC);
            if ((file == null) == (topic == null)) {
                throw new InvalidOptionException("Give one of --" + BootstrapOptions.FROM_FILE.key() + " and --"
                        + BootstrapOptions.FROM_TOPIC.key() + ": " + BootstrapOptions.FROM_FILE.key() + " for a file of rows, "
                        + BootstrapOptions.FROM_TOPIC.key() + " for a Kafka topic. Run with --help for the list.");
            }
            if (topic != null && !options.contains(BOOTSTRAP_SERVERS)) {
                throw new InvalidOptionException("--" + BootstrapOptions.FROM_TOPIC.key() + " needs --" + BOOTSTRAP_SERVERS.key());
            }
            if (file != null && (options.contains(BOOTSTRAP_SERVERS) || !kafkaProperties.isEmpty())) {
                throw new InvalidOptionException("--" + BOOTSTRAP_SERVERS.key() + " and kafka.* options are for --"
                        + BootstrapOptions.FROM_TOPIC.key() + ", not --" + BootstrapOptions.FROM_FILE.key());
            }
            if (file != null) {
                try {
                    Path path = new Path(file);
                    if (!path.getFileSystem().exists(path)) {
                        throw new InvalidOptionException("--" + BootstrapOptions.FROM_FILE.key() + " " + file + ": no such file");
                    }
                } catch (java.io.IOException e) {
                    throw new InvalidOptionException("Cannot read --" + BootstrapOptions.FROM_FILE.key() + " " + file + ": " + e, e);
                }
            }
            output = ToolOptions.newOutput(required(options, ToolOptions.OUTPUT));
            required(options, CAPACITY);
            parallelism = options.get(ToolOptions.PARALLELISM);
            if (parallelism < 1) {
                throw new InvalidOptionException("Invalid value '" + parallelism + "' for --" + ToolOptions.PARALLELISM.key()
                        + ": expected a positive parallelism");
            }
            plan = PlanOptions.plan(options);
            maxParallelism = options.get(MAX_PARALLELISM);
            stateBackend = options.get(STATE_BACKEND);
            secret = options.getOptional(FINGERPRINT_SECRET_FILE).map(FingerprintSecretOption::readSecretFile).orElse(null);
            fingerprintCheck = secret == null ? FingerprintSecret.NO_SECRET : secret.checkValue();
            dedupKey = topic == null ? null : ParserOptions.parserSettings(options, secret).keyDescription();
            asOf = options.getOptional(BootstrapOptions.AS_OF).map(Settings::asOf).orElse(null);
        }

        static Settings parse(String... args) {
            ToolArguments parsed = ToolArguments.parse(args, ACCEPTED);
            return new Settings(parsed.options(), parsed.kafkaProperties());
        }

        HistorySource history() {
            Instant minEventTime = Instant.parse(options.get(MIN_EVENT_TIME));
            if (file != null) {
                return HistorySource.ofFile(file, secret, minEventTime);
            }
            ParserSettings parser = ParserOptions.parserSettings(options, secret);
            return HistorySource.ofTopic(topic, options.get(BOOTSTRAP_SERVERS), kafkaProperties, parser, options.get(MAX_HEADERS));
        }

        private static <T> T required(Configuration options, ConfigOption<T> option) {
            if (!options.contains(option)) {
                throw new InvalidOptionException("Missing required option --" + option.key() + ": " + descriptionOf(option)
                        + " Run with --help for the list.");
            }
            return options.get(option);
        }

        private static long asOf(String text) {
            Long millis = HistoryRowParser.eventTime(text);
            if (millis == null) {
                throw new InvalidOptionException("Invalid value '" + text + "' for --" + BootstrapOptions.AS_OF.key()
                        + ": expected an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z) or epoch milliseconds");
            }
            return millis;
        }
    }
}
