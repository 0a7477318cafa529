package io.impressiondedup.tools.reshape;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.state.reshape.ReshapeRefusedException;
import io.impressiondedup.state.reshape.ShardReshape;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.ToolOptions;
import io.impressiondedup.tools.VerbRun;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * {@code dedup-tools reshape}: rewrites a savepoint of the dedup job for a multiple of its shard count, or a divisor
 * of it when every live bucket is in the fingerprint format, keeping every other operator's state (Kafka offsets, the
 * sink's transactions) as it is, so the job resumes from the rewritten savepoint exactly where it stopped. The rules
 * are {@link ShardReshape}'s: every new shard gets the filters, or the fingerprint parts, that hold its requests, so
 * nothing is re-inserted, nothing is lost, and a lookup meets the bits or sections it met before, at the same FPP.
 *
 * <p><b>Checked before anything is written.</b> The tool reads every shard's bucket directory first (a small job:
 * a few dozen bytes per shard and bucket) and plans the whole reshape from them; a shard count that would lose
 * anything (a Bloom bucket merged into fewer shards, a fingerprint part cut across a new shard's boundary by an
 * earlier reshape, a page count past an int) is refused naming the bucket and what works, and no output exists. The
 * writing job then only moves pages and writes the planned directories.
 *
 * <p><b>Costs.</b> To more shards, each child gets a copy of every Bloom filter of its parent and of every fingerprint
 * part wider than itself: up to that many times their memory, until the copied buckets expire (retention + allowed
 * lateness + one bucket). A part finer than the children moves to the one child that holds it, so a reshape to fewer
 * shards and back is the state it started from. To fewer shards, the state keeps its size.
 *
 * <p>Not done here: a count that is neither a multiple nor a divisor, or another max parallelism (Flink's key
 * groups of every operator are fixed by it). For those, build a new savepoint from history with {@code dedup-tools
 * bootstrap}. A change of {@code --capacity} or {@code --page-bytes} needs no rewrite: each filter and part keeps
 * the sizing it was created with, and the job creates new ones with the new.
 */
public final class ReshapeCommand {

    static final String USAGE = "reshape --savepoint <dir> --output <dir> --shards <new count> [--name value ...]";
    static final String BYTES_WRITTEN = "dedup-state-bytes-written";

    private static final List<ConfigOption<?>> OPTIONS = List.of(ToolOptions.SAVEPOINT, ToolOptions.OUTPUT, DedupJobOptions.SHARDS,
            DedupJobOptions.STATE_BACKEND, ToolOptions.PARALLELISM, ToolOptions.VERBOSE);

    private ReshapeCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return VerbRun.run("reshape", USAGE, "Rewrites a savepoint of the dedup job for a shard count that is a multiple of its"
                + " own (each new shard gets its parent's filters, or the fingerprint parts of its own requests: no copy can pass,"
                + " no FPP cost per lookup; copied days take that many times their memory until they expire), or a divisor of it"
                + " when every live bucket is in the fingerprint format (each old shard becomes a part of its parent, nothing lost,"
                + " the FPP per lookup kept). Any chain of both is exact; what cannot be done is refused before anything is"
                + " written. Other operators' state (Kafka offsets, transactions) is kept. Start the job from --output with the"
                + " new --shards.", OPTIONS, false, args, out, err, ReshapeCommand::parse, ReshapeCommand::reshape);
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
        String refused = ShardReshape.countRefusal(from, to);
        if (refused != null) {
            throw new InvalidOptionException(refused);
        }
        int parallelism = options.get(ToolOptions.PARALLELISM);
        ShardReshape plan;
        try {
            plan = ShardReshape.plan(from, to, savepoint.directories(backend, parallelism));
        } catch (ReshapeRefusedException e) {
            throw new InvalidOptionException(e.getMessage());
        }
        long bytes = write(savepoint, plan, options.get(ToolOptions.OUTPUT), backend, parallelism);
        if (plan.merges()) {
            out.printf("Reshaped %s from %d to %d shards: each new shard holds the fingerprints of %d old ones, each as a part.%n  %s%n"
                            + "  %,d bytes of dedup state written, as many as the savepoint's.%n"
                            + "Start the job from it with --shards %d (and the same --max-parallelism %d).%n",
                    savepoint.path(), from, to, from / to, options.get(ToolOptions.OUTPUT), bytes, to, savepoint.facts().maxParallelism());
            return 0;
        }
        out.printf("Reshaped %s from %d to %d shards: each new shard holds its parent's filters, or the fingerprint parts of its"
                        + " requests.%n  %s%n  %,d bytes of dedup state written, up to %dx the savepoint's until the copied buckets"
                        + " expire.%nStart the job from it with --shards %d (and the same --max-parallelism %d).%n",
                savepoint.path(), from, to, options.get(ToolOptions.OUTPUT), bytes, to / from, to, savepoint.facts().maxParallelism());
        return 0;
    }

    /** Writes the reshaped savepoint; returns the bytes of dedup state entries written. */
    static long write(DedupSavepoint savepoint, ShardReshape plan, String output, StateBackend backend, int parallelism) throws Exception {
        StreamExecutionEnvironment env = ToolEnvironment.create(parallelism);
        DataStream<ShardEntry> entries = savepoint.shardEntries(env, backend)
                .flatMap(new MovedPages(plan), Types.POJO(ShardEntry.class))
                .name(plan.merges() ? "make each shard a part of its parent" : "give each child its parent's state");
        List<ShardEntry> directories = new ArrayList<>();
        plan.directories().forEach((shard, directory) -> directories.add(ShardEntry.directory(shard, directory)));
        if (!directories.isEmpty()) {
            entries = entries.union(env.fromData(directories).map(new CountedBytes(), Types.POJO(ShardEntry.class))
                    .name("the planned directories"));
        }
        ShardKeys keys = new ShardKeys(plan.to(), savepoint.facts().maxParallelism());
        SavepointWriter.fromExistingSavepoint(env, savepoint.path(), backend)
                .removeOperator(DedupSavepoint.OPERATOR)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(entries, keys, savepoint.facts(), true))
                .write(output);
        JobExecutionResult result;
        try {
            result = ToolEnvironment.execute(env, "dedup-tools reshape " + plan.from() + " -> " + plan.to() + " shards");
        } catch (Exception e) {
            ToolOptions.removeOutput(output, e);
            throw e;
        }
        Long written = result.getAccumulatorResult(BYTES_WRITTEN);
        return written == null ? 0 : written;
    }

    /** Each page of an old shard where {@link ShardReshape} moves it; directories are dropped (the plan writes new ones). */
    static final class MovedPages extends RichFlatMapFunction<ShardEntry, ShardEntry> {

        private static final long serialVersionUID = 1L;

        private final ShardReshape plan;
        private final LongCounter bytes = new LongCounter();

        MovedPages(ShardReshape plan) {
            this.plan = plan;
        }

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(BYTES_WRITTEN, bytes);
        }

        @Override
        public void flatMap(ShardEntry entry, Collector<ShardEntry> out) {
            if (entry.isDirectory()) {
                return;
            }
            if (!entry.fingerprintPage) {
                for (int child : plan.childrenOf(entry.shard)) { // never when merging: the plan refuses Bloom buckets
                    emit(entry.withShard(child), out);
                }
            } else if (plan.splitsPagesOf(entry.shard)) {
                plan.moveFingerprintPage(entry.shard, entry.address, entry.fingerprintPage(),
                        (shard, key, page) -> emit(ShardEntry.fingerprintPage(shard, key, page), out));
            } else {
                for (long[] move : plan.wholePageMoves(entry.shard, entry.address)) {
                    emit(new ShardEntry((int) move[0], move[1], true, entry.value), out);
                }
            }
        }

        private void emit(ShardEntry entry, Collector<ShardEntry> out) {
            bytes.add(entry.value.length);
            out.collect(entry);
        }
    }

    /** Counts the bytes of the planned directories into {@link #BYTES_WRITTEN}. */
    static final class CountedBytes extends RichMapFunction<ShardEntry, ShardEntry> {

        private static final long serialVersionUID = 1L;

        private final LongCounter bytes = new LongCounter();

        @Override
        public void open(OpenContext openContext) {
            getRuntimeContext().addAccumulator(BYTES_WRITTEN, bytes);
        }

        @Override
        public ShardEntry map(ShardEntry entry) {
            bytes.add(entry.value.length);
            return entry;
        }
    }
}
