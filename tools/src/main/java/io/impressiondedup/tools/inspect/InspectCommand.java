package io.impressiondedup.tools.inspect;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.FingerprintSecretOption;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.job.config.PlanOptions;
import io.impressiondedup.state.FilterStatistics;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.ToolOptions;
import io.impressiondedup.tools.VerbRun;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code dedup-tools inspect}: what a savepoint's dedup state holds, and what it would decide.
 *
 * <p><b>Statistics</b> (default): the facts (shards, max parallelism, secret used, lateness watermark), the
 * job-wide figures the operator's gauges showed at that checkpoint ({@link FilterStatistics} over every
 * shard), a summary per bucket and, with {@code --per-shard}, the figures of each shard's filter of each
 * bucket, bits counted in the pages actually in state.
 *
 * <p><b>Queries</b> ({@code --request-id/--ad-id/--event-time} or {@code --query-file}): for each impression,
 * DUPLICATE (and the bucket that holds it), NEW, or LATE, exactly as the operator restored from the savepoint
 * would decide it now ({@link QueryDecision}). The queries are digested here (with the job's fingerprint
 * secret) and looked up inside the State Processor API job, each in its own shard ({@link ShardInspector}):
 * only verdicts come back, never pages.
 *
 * <p>The job's time options ({@code --bucket-size}, {@code --retention}, {@code --allowed-lateness}, {@code
 * --zone}) are read from the savepoint where the job recorded them; one given that differs from the recorded one
 * fails, naming it. State that records none (state v1-v3, or written by the state tools) is read
 * under the options given, or the defaults.
 */
public final class InspectCommand {

    static final String USAGE = "inspect --savepoint <dir> [--per-shard] [--json]"
            + " [--request-id R --ad-id A --event-time T | --query-file F] [--name value ...]";

    static final List<ConfigOption<?>> ACCEPTED = List.of(ToolOptions.SAVEPOINT, DedupJobOptions.STATE_BACKEND,
            DedupJobOptions.BUCKET_SIZE, DedupJobOptions.RETENTION, DedupJobOptions.ALLOWED_LATENESS, DedupJobOptions.ZONE,
            DedupJobOptions.FINGERPRINT_SECRET_FILE, InspectOptions.PER_SHARD, InspectOptions.JSON, InspectOptions.REQUEST_ID,
            InspectOptions.AD_ID, InspectOptions.EVENT_TIME, InspectOptions.QUERY_FILE, ToolOptions.PARALLELISM, ToolOptions.VERBOSE);

    private InspectCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("inspect", USAGE, "Prints what the dedup state of a savepoint holds: per bucket (and with --per-shard"
                + " per shard) inserted impressions, fill, growth layers, bits set, estimated FPP and bytes, with the"
                + " job-wide figures its gauges showed; or, for given impressions, whether the job restored from it would"
                + " drop them as duplicates (and in which bucket they were found), pass them as new, or set them aside as"
                + " late. Give the job's --bucket-size, --retention, --allowed-lateness, --zone and"
                + " --fingerprint-secret-file if it ran with them.", ACCEPTED, false, args, out, err, Request::parse,
                InspectCommand::inspect);
    }

    private static int inspect(Request request, PrintStream out, PrintStream err) throws Exception {
        StateBackend backend = ToolOptions.backendOf(request.options.get(DedupJobOptions.STATE_BACKEND));
        DedupSavepoint savepoint = DedupSavepoint.open(request.savepoint, backend);
        checkSecret(savepoint.facts(), request.secret);
        InspectReport report = inspect(savepoint, backend, request.withBuckets(recordedTimeOptions(savepoint.facts(), request)));
        out.print(request.options.get(InspectOptions.JSON) ? report.json() : report.table());
        return 0;
    }

    /** The command line, checked: every mistake fails naming its option, before any savepoint is read. */
    private record Request(Configuration options, String savepoint, TimeBuckets buckets, FingerprintSecret secret,
            List<QueryFile.Row> rows) {

        static Request parse(String[] args) {
            Configuration options = Configuration.fromMap(OptionSources.fromArguments(args, ACCEPTED, false));
            OptionValues.check(options, ACCEPTED);
            String savepoint = options.getOptional(ToolOptions.SAVEPOINT).orElseThrow(() -> new InvalidOptionException(
                    "Missing required option --" + ToolOptions.SAVEPOINT.key() + ": " + DedupJobOptions.descriptionOf(ToolOptions.SAVEPOINT)));
            if (!savepoint.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*") && !Files.isDirectory(Path.of(savepoint))) { // a URI is Flink's to open
                throw new InvalidOptionException("--" + ToolOptions.SAVEPOINT.key() + " " + savepoint + " is not a directory");
            }
            if (options.get(ToolOptions.PARALLELISM) < 1) {
                throw new InvalidOptionException("Invalid value '" + options.get(ToolOptions.PARALLELISM) + "' for --"
                        + ToolOptions.PARALLELISM.key() + ": expected a positive parallelism");
            }
            TimeBuckets buckets = PlanOptions.timeBuckets(options);
            FingerprintSecret secret = options.getOptional(DedupJobOptions.FINGERPRINT_SECRET_FILE).map(FingerprintSecretOption::readSecret).orElse(null);
            return new Request(options, savepoint, buckets, secret, rows(options));
        }

        boolean queries() {
            return rows != null;
        }

        Request withBuckets(TimeBuckets recorded) {
            return new Request(options, savepoint, recorded, secret, rows);
        }

        private static List<QueryFile.Row> rows(Configuration options) {
            List<ConfigOption<String>> single = List.of(InspectOptions.REQUEST_ID, InspectOptions.AD_ID, InspectOptions.EVENT_TIME);
            List<String> given = new ArrayList<>();
            for (ConfigOption<String> option : single) {
                if (options.contains(option)) {
                    given.add("--" + option.key());
                }
            }
            boolean file = options.contains(InspectOptions.QUERY_FILE);
            if (file && !given.isEmpty()) {
                throw new InvalidOptionException("--" + InspectOptions.QUERY_FILE.key() + " and " + String.join(", ", given)
                        + " exclude each other: give one query on the command line or a file of them");
            }
            if (!given.isEmpty() && given.size() < single.size()) {
                throw new InvalidOptionException("A query needs --" + InspectOptions.REQUEST_ID.key() + ", --" + InspectOptions.AD_ID.key()
                        + " and --" + InspectOptions.EVENT_TIME.key() + "; only " + String.join(", ", given) + " given");
            }
            if ((file || !given.isEmpty()) && options.get(InspectOptions.PER_SHARD)) {
                throw new InvalidOptionException("--" + InspectOptions.PER_SHARD.key() + " lists statistics; it does not apply to queries");
            }
            if (file) {
                return QueryFile.read(Path.of(options.get(InspectOptions.QUERY_FILE)));
            }
            if (given.isEmpty()) {
                return null;
            }
            String requestId = options.get(InspectOptions.REQUEST_ID);
            String adId = options.get(InspectOptions.AD_ID);
            if (requestId.isEmpty() || adId.isEmpty()) {
                throw new InvalidOptionException("--" + (requestId.isEmpty() ? InspectOptions.REQUEST_ID : InspectOptions.AD_ID).key()
                        + " must not be empty");
            }
            long eventTime = QueryFile.eventTime(options.get(InspectOptions.EVENT_TIME), "--" + InspectOptions.EVENT_TIME.key());
            return List.of(new QueryFile.Row(requestId, adId, eventTime));
        }
    }

    /**
     * Fails naming {@code --fingerprint-secret-file} unless the given secret (or none) is the one the state was
     * written with: queries digested otherwise would be looked up in the wrong shard and bits, and every
     * verdict would be wrong. State without a check value counts as written without a secret, as the job counts it.
     */
    static void checkSecret(DedupSavepoint.Facts facts, FingerprintSecret secret) {
        long written = facts.fingerprintCheck() == null ? FingerprintSecret.NO_SECRET : facts.fingerprintCheck();
        long given = FingerprintSecret.checkValueOf(secret);
        if (written == given || (secret != null && secret.wroteCheckValue(written))) {
            return; // the secret's check value v2, or v1 (unsalted), which state v2 and v3 hold (FingerprintSecret)
        }
        String option = "--" + DedupJobOptions.FINGERPRINT_SECRET_FILE.key();
        if (written == FingerprintSecret.NO_SECRET) {
            throw new InvalidOptionException("The savepoint's dedup state was written without a fingerprint secret, but " + option
                    + " was given (check value " + FingerprintSecret.describeCheckValue(given) + "): leave it out.");
        }
        if (given == FingerprintSecret.NO_SECRET) {
            throw new InvalidOptionException("The savepoint's dedup state was written with a fingerprint secret (check value "
                    + FingerprintSecret.describeCheckValue(written) + "): give the job's " + option + ", else every request is"
                    + " looked up in the wrong shard and bits.");
        }
        throw new InvalidOptionException("The savepoint's dedup state was written with another fingerprint secret (check value "
                + FingerprintSecret.describeCheckValue(written) + ") than " + option + " (check value "
                + FingerprintSecret.describeCheckValue(given) + "): give the file the job ran with.");
    }

    /** The time options the state records, or those given (or the defaults) if it records none; one given that differs fails. */
    static TimeBuckets recordedTimeOptions(DedupSavepoint.Facts facts, Request request) {
        if (facts.timeOptions() == null) {
            return request.buckets;
        }
        TimeBuckets recorded = TimeBuckets.fromDescription(facts.timeOptions());
        Map<ConfigOption<?>, Object[]> given = new LinkedHashMap<>();
        given.put(DedupJobOptions.BUCKET_SIZE, new Object[] {recorded.bucketSize(), request.buckets.bucketSize()});
        given.put(DedupJobOptions.RETENTION, new Object[] {recorded.retention(), request.buckets.retention()});
        given.put(DedupJobOptions.ALLOWED_LATENESS, new Object[] {recorded.allowedLateness(), request.buckets.allowedLateness()});
        given.put(DedupJobOptions.ZONE, new Object[] {recorded.zone().normalized(), request.buckets.zone().normalized()});
        for (Map.Entry<ConfigOption<?>, Object[]> option : given.entrySet()) {
            if (request.options.contains(option.getKey()) && !option.getValue()[0].equals(option.getValue()[1])) {
                throw new InvalidOptionException("--" + option.getKey().key() + " " + option.getValue()[1] + " differs from the "
                        + option.getValue()[0] + " the savepoint's state was written under (" + facts.timeOptions()
                        + "): leave it out, the savepoint records it.");
            }
        }
        return recorded;
    }

    private static InspectReport inspect(DedupSavepoint savepoint, StateBackend backend, Request request) throws Exception {
        DedupSavepoint.Facts facts = savepoint.facts();
        long watermark = facts.latenessWatermark() == null ? Long.MIN_VALUE : facts.latenessWatermark();
        long lateBefore = facts.lateBefore() != null ? facts.lateBefore() : request.buckets.lateBefore(watermark, Long.MIN_VALUE);
        QueryDecision decision = new QueryDecision(request.buckets, watermark, lateBefore);
        List<Query> queries = new ArrayList<>();
        ShardInspector inspector;
        if (request.queries()) {
            RequestIdDigester digester = new RequestIdDigester(request.secret);
            for (QueryFile.Row row : request.rows) {
                queries.add(Query.of(queries.size(), row.requestId(), row.adId(), row.eventTime(), digester, request.secret, facts.shards()));
            }
            inspector = ShardInspector.queries(facts.shardKeys(), decision, queries);
        } else {
            inspector = ShardInspector.statistics(facts.shardKeys());
        }

        StreamExecutionEnvironment env = ToolEnvironment.create(request.options.get(ToolOptions.PARALLELISM));
        Configuration noKryo = new Configuration();
        noKryo.set(PipelineOptions.GENERIC_TYPES, false); // everything the job moves has a POJO or basic serializer
        env.configure(noKryo);
        FilterStatistics totals = new FilterStatistics();
        List<BucketFigures> figures = new ArrayList<>();
        QueryVerdict[] verdicts = new QueryVerdict[queries.size()];
        ToolEnvironment.collect(savepoint.keyedState(env, backend, inspector, TypeInformation.of(ShardInspection.class)), "dedup-tools inspect",
                shard -> {
                    if (shard.directory != null) {
                        totals.add(new ShardEntry(shard.shard, ShardEntry.DIRECTORY, shard.directory).directory());
                    }
                    figures.addAll(List.of(shard.buckets));
                    for (QueryVerdict verdict : shard.verdicts) {
                        verdicts[verdict.index] = verdict;
                    }
                });
        for (Query query : queries) {
            if (verdicts[query.index()] == null) { // its shard holds no state at all
                verdicts[query.index()] = decision.decide(query, null, null);
            }
        }
        return new InspectReport(savepoint.path(), facts, request.buckets, totals, request.queries() ? null : figures,
                request.options.get(InspectOptions.PER_SHARD), request.queries() ? List.of(verdicts) : null);
    }
}
