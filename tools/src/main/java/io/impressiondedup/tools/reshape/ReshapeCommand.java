package io.impressiondedup.tools.reshape;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.operators.dedup.ShardKeys;
import io.impressiondedup.state.fingerprints.FingerprintShardMerge;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.ToolOptions;
import io.impressiondedup.tools.VerbRun;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import io.impressiondedup.tools.savepoint.ShardEntry;

/**
 * {@code dedup-tools reshape}: rewrites a savepoint of the dedup job for a larger shard count, or a smaller one
 * when every live bucket is in the fingerprint format, keeping every other operator's state (Kafka offsets, the
 * sink's transactions) as it is, so the job resumes from the rewritten savepoint exactly where it stopped.
 *
 * <p><b>Method: every new shard starts with a copy of its parent shard's filters.</b> A Bloom filter
 * cannot be split by key: its bits do not say which element set them. But the shard of a request is
 * {@code floor(x * shards / 2^32)} of the top 32 bits x of its digest ({@code FingerprintScheme.shardOf}),
 * so with M = k x N shards, new shard s' holds exactly the requests of old shard {@code s' / k} whose x
 * falls in the k-th part of its range. Each of the k children of an old shard gets a bit-for-bit copy
 * of all of its parent's bucket filters. Nothing is re-inserted, nothing is lost: every impression the
 * parent knew is known to the child its request now maps to, so no copy of it can pass (zero false
 * negatives, as before the reshape).
 *
 * <p><b>FPP cost: none per lookup.</b> A lookup in a copied filter meets the same bits the parent
 * had, so its false-positive probability is the parent's at that fill. Later inserts into a copied
 * bucket (the current day, and buckets ahead of it) come only from the child's share of the parent's
 * traffic, 1/k of it, so these filters fill more slowly than they would have without the reshape; new
 * buckets are sized by the new plan ({@code --capacity} over the new shard count). <b>Memory cost:</b>
 * the copied buckets take k times their bytes until they expire: at most retention + allowed lateness
 * + one bucket after the reshape (4 days with the defaults), after which the state is that of M shards.
 * A copied filter's growth layers count against its new, smaller shard's state cap.
 *
 * <p><b>Fewer shards: merged, fingerprint format only.</b> With N = k x M, old shard s becomes part {@code s mod k}
 * of new shard {@code s / k}: its fingerprint pages move unchanged to the parent's page keys of that part, and the
 * parts' directories are summed ({@link FingerprintShardMerge}, whose class comment says why nothing is lost and the
 * FPP per lookup is kept). The state is the same size afterwards. A savepoint holding any Bloom bucket is refused,
 * naming it: Bloom filters would have to be merged by OR-ing their bits, which raises every merged filter's fill
 * and FPP several times over. Switch to {@code --state-format fingerprints} and wait out the retention first.
 *
 * <p>Not done here: a count that is neither a multiple nor a divisor, or another max parallelism (Flink's key
 * groups of every operator are fixed by it). For those, build a new savepoint from history with {@code dedup-tools
 * bootstrap}. A change of {@code --capacity} or {@code --page-bytes} needs no rewrite: each filter keeps
 * the geometry it was created with, and the job creates new buckets with the new one.
 */
public final class ReshapeCommand {

    static final String USAGE = "reshape --savepoint <dir> --output <dir> --shards <new count> [--name value ...]";

    private static final List<ConfigOption<?>> OPTIONS = List.of(ToolOptions.SAVEPOINT, ToolOptions.OUTPUT, DedupJobOptions.SHARDS,
            DedupJobOptions.STATE_BACKEND, ToolOptions.PARALLELISM, ToolOptions.VERBOSE);

    private ReshapeCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("reshape", USAGE, "Rewrites a savepoint of the dedup job for a shard count that is a multiple of its"
                + " own: each new shard starts with a copy of its parent shard's filters (no copy can pass, no FPP cost per"
                + " lookup; the copied days take that many times their memory until they expire), or for a divisor of it when every"
                + " live bucket is in the fingerprint format (each shard becomes a part of its parent, nothing lost, the FPP per"
                + " lookup kept). Other operators' state"
                + " (Kafka offsets, transactions) is kept. Start the job from --output with the new --shards.", OPTIONS, false,
                args, out, err, ReshapeCommand::parse, ReshapeCommand::reshape);
    }

    private static Configuration parse(String[] args) {
        Configuration options = Configuration.fromMap(OptionSources.fromArguments(args, OPTIONS, false));
        OptionValues.check(options, OPTIONS);
        for (ConfigOption<?> required : List.of(ToolOptions.SAVEPOINT, ToolOptions.OUTPUT, DedupJobOptions.SHARDS)) {
            if (!options.contains(required)) {
                throw new InvalidOptionException("Missing required option --" + required.key() + ". Run with --help for the list.");
            }
        }
        ToolOptions.newOutput(options.get(ToolOptions.OUTPUT));
        return options;
    }

    private static int reshape(Configuration options, PrintStream out, PrintStream err) throws Exception {
        StateBackend backend = ToolOptions.backendOf(options.get(DedupJobOptions.STATE_BACKEND));
        DedupSavepoint savepoint = DedupSavepoint.open(options.get(ToolOptions.SAVEPOINT), backend);
        int from = savepoint.facts().shards();
        int to = options.get(DedupJobOptions.SHARDS);
        String refused = refusal(from, to);
        if (refused != null) {
            throw new InvalidOptionException(refused);
        }
        long bytes = reshape(savepoint, to, options.get(ToolOptions.OUTPUT), backend, options.get(ToolOptions.PARALLELISM));
        if (to < from) {
            out.printf("Reshaped %s from %d to %d shards: each new shard holds the fingerprints of %d old ones.%n  %s%n"
                            + "  %,d bytes of dedup state written, as many as the savepoint's.%n"
                            + "Start the job from it with --shards %d (and the same --max-parallelism %d).%n",
                    savepoint.path(), from, to, from / to, options.get(ToolOptions.OUTPUT), bytes, to, savepoint.facts().maxParallelism());
            return 0;
        }
        out.printf("Reshaped %s from %d to %d shards: each new shard holds a copy of its parent's filters.%n  %s%n"
                        + "  %,d bytes of dedup state written, %dx the savepoint's until the copied buckets expire.%n"
                        + "Start the job from it with --shards %d (and the same --max-parallelism %d).%n",
                savepoint.path(), from, to, options.get(ToolOptions.OUTPUT), bytes, to / from, to, savepoint.facts().maxParallelism());
        return 0;
    }

    /** Why {@code from -> to} shards cannot be done without loss, or {@code null} if it can. */
    static String refusal(int from, int to) {
        if (to == from) {
            return "--shards " + to + " is the savepoint's shard count already: nothing to do.";
        }
        if (to < from ? from % to != 0 : to % from != 0) {
            return "--shards " + to + " is neither a multiple nor a divisor of the savepoint's " + from + " shards. A filter cannot be"
                    + " split by key, and only fingerprint buckets can be merged by whole shards: a count that is neither would have"
                    + " to OR filters together, raising their fill and FPP several times over. Use a multiple (" + 2 * from + ", "
                    + 3 * from + ", ...), a divisor (every live bucket in the fingerprint format), or build a new savepoint from"
                    + " history with `dedup-tools bootstrap --shards " + to + "` (from the job's output topic).";
        }
        return null;
    }

    /** Writes the reshaped savepoint; returns the bytes of dedup state entries written. */
    static long reshape(DedupSavepoint savepoint, int shards, String output, StateBackend backend, int parallelism) throws Exception {
        int from = savepoint.facts().shards();
        boolean merge = shards < from;
        if (merge) {
            String refused = firstMergeRefusal(savepoint, backend, parallelism);
            if (refused != null) {
                throw new InvalidOptionException("--shards " + shards + ": " + refused + ". Nothing was written.");
            }
        }
        StreamExecutionEnvironment env = ToolEnvironment.create(parallelism);
        DataStream<ShardEntry> entries = merge
                ? savepoint.shardEntries(env, backend).map(new ParentShards(from / shards), Types.POJO(ShardEntry.class))
                        .name("make each shard a part of its parent")
                : savepoint.shardEntries(env, backend).flatMap(new ChildShards(shards / from), Types.POJO(ShardEntry.class))
                        .name("copy each shard's state to its children");
        ShardKeys keys = new ShardKeys(shards, savepoint.facts().maxParallelism());
        SavepointWriter.fromExistingSavepoint(env, savepoint.path(), backend)
                .removeOperator(DedupSavepoint.OPERATOR)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(entries, keys, savepoint.facts(), merge))
                .write(output);
        JobExecutionResult result;
        try {
            result = ToolEnvironment.execute(env, "dedup-tools reshape " + from + " -> " + shards + " shards");
        } catch (Exception e) {
            ToolOptions.removeOutput(output, e);
            throw e;
        }
        Long written = result.getAccumulatorResult(ChildShards.BYTES_WRITTEN);
        return written == null ? 0 : written;
    }

    /** The first (by message) reason a shard of {@code savepoint} cannot be merged, read from its directories; {@code null} if none. */
    private static String firstMergeRefusal(DedupSavepoint savepoint, StateBackend backend, int parallelism) throws Exception {
        List<String> refusals = new ArrayList<>();
        ToolEnvironment.collect(savepoint.keyedState(ToolEnvironment.create(parallelism), backend,
                new MergeRefusals(savepoint.facts().shardKeys()), Types.STRING), "dedup-tools reshape: can the shards be merged?", refusals::add);
        return refusals.stream().min(String::compareTo).orElse(null);
    }

    /** Each entry of old shard s as part {@code s mod k} of new shard {@code s / k}; counts the bytes written. */
    static final class ParentShards extends org.apache.flink.api.common.functions.RichMapFunction<ShardEntry, ShardEntry> {

        private static final long serialVersionUID = 1L;

        private final int factor;
        private final LongCounter bytes = new LongCounter();

        ParentShards(int factor) {
            this.factor = factor;
        }

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(ChildShards.BYTES_WRITTEN, bytes);
        }

        @Override
        public ShardEntry map(ShardEntry entry) {
            int parent = FingerprintShardMerge.parentOf(entry.shard, factor);
            ShardEntry part;
            if (entry.isDirectory()) {
                part = ShardEntry.directory(parent, FingerprintShardMerge.asPart(entry.shard, entry.directory(), factor)); // refused before
            } else if (entry.fingerprintPage) {
                part = new ShardEntry(parent, FingerprintShardMerge.pageKeyInParent(entry.shard, entry.address, factor), true, entry.value);
            } else {
                throw new IllegalStateException("shard " + entry.shard + " holds Bloom pages (group " + entry.address + ") but no"
                        + " Bloom bucket: a corrupt savepoint; only fingerprint buckets can be merged into fewer shards");
            }
            bytes.add(part.value.length);
            return part;
        }
    }

    /** Each entry of old shard s, once under each of its children s * k .. s * k + k - 1; counts the bytes written. */
    static final class ChildShards extends RichFlatMapFunction<ShardEntry, ShardEntry> {

        private static final long serialVersionUID = 1L;
        static final String BYTES_WRITTEN = "dedup-state-bytes-written";

        private final int factor;
        private final LongCounter bytes = new LongCounter();

        ChildShards(int factor) {
            this.factor = factor;
        }

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(BYTES_WRITTEN, bytes);
        }

        @Override
        public void flatMap(ShardEntry entry, Collector<ShardEntry> copies) {
            for (int child = 0; child < factor; child++) {
                copies.collect(entry.withShard(entry.shard * factor + child));
                bytes.add(entry.value.length);
            }
        }
    }
}
