package io.impressiondedup.tools.reshape;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.operators.dedup.ShardKeys;
import java.io.PrintStream;
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
 * {@code dedup-tools reshape}: rewrites a savepoint of the dedup job for a larger shard count, keeping
 * every other operator's state (Kafka offsets, the sink's transactions) as it is, so the job resumes
 * from the rewritten savepoint exactly where it stopped.
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
 * <p>Not done here, because it cannot be done without loss: fewer shards, or a count that is not a
 * multiple (old filters would have to be merged by OR-ing their bits, which raises every merged
 * filter's fill and FPP several times over), or another max parallelism (Flink's key groups of every
 * operator are fixed by it). For those, build a new savepoint from history with {@code dedup-tools
 * bootstrap}. A change of {@code --capacity} or {@code --page-bytes} needs no rewrite: each filter keeps
 * the geometry it was created with, and the job creates new buckets with the new one.
 */
public final class ReshapeCommand {

    static final String USAGE = "reshape --savepoint <dir> --output <dir> --shards <new count> [--name value ...]";

    private static final List<ConfigOption<?>> OPTIONS = List.of(
            ToolOptions.SAVEPOINT, ToolOptions.OUTPUT, DedupJobOptions.SHARDS, DedupJobOptions.STATE_BACKEND, ToolOptions.PARALLELISM);

    private ReshapeCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("reshape", USAGE, "Rewrites a savepoint of the dedup job for a shard count that is a multiple of its"
                + " own: each new shard starts with a copy of its parent shard's filters (no copy can pass, no FPP cost per"
                + " lookup; the copied days take that many times their memory until they expire). Other operators' state"
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
        if (to < from || to % from != 0) {
            return "--shards " + to + " is not a multiple of the savepoint's " + from + " shards. A Bloom filter cannot be split or"
                    + " merged by key: fewer shards, or a count that is not a multiple, would have to OR filters together, raising their"
                    + " fill and FPP several times over. Use a multiple (" + 2 * from + ", " + 3 * from + ", ...), or build a new"
                    + " savepoint from history with `dedup-tools bootstrap --shards " + to + "` (from the job's output topic).";
        }
        return null;
    }

    /** Writes the reshaped savepoint; returns the bytes of dedup state entries written. */
    static long reshape(DedupSavepoint savepoint, int shards, String output, StateBackend backend, int parallelism) throws Exception {
        int factor = shards / savepoint.facts().shards();
        StreamExecutionEnvironment env = ToolEnvironment.create(parallelism);
        DataStream<ShardEntry> children = savepoint.shardEntries(env, backend)
                .flatMap(new ChildShards(factor), Types.POJO(ShardEntry.class))
                .name("copy each shard's state to its children");
        ShardKeys keys = new ShardKeys(shards, savepoint.facts().maxParallelism());
        SavepointWriter.fromExistingSavepoint(env, savepoint.path(), backend)
                .removeOperator(DedupSavepoint.OPERATOR)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(children, keys, savepoint.facts()))
                .write(output);
        JobExecutionResult result = env.execute("dedup-tools reshape " + savepoint.facts().shards() + " -> " + shards + " shards");
        Long written = result.getAccumulatorResult(ChildShards.BYTES_WRITTEN);
        return written == null ? 0 : written;
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
