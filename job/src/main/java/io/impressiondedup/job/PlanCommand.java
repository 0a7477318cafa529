package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.job.config.PlanOptions;
import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.operators.dedup.store.PageCacheBudget;
import io.impressiondedup.state.plan.CapacityReport;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.PrintStream;
import org.apache.flink.configuration.Configuration;

/**
 * The {@code plan} command: prints the {@link CapacityReport} of a planned deployment (ending with both state formats
 * side by side, {@link io.impressiondedup.state.plan.StateFormatForecast}), from the same
 * options the job takes ({@link DedupJobOptions#PLAN}: {@code --capacity}, {@code --fpp}, ...), turned
 * into a plan by the same function the job uses ({@link PlanOptions#plan}), so the report is the
 * plan the job will run.
 */
public final class PlanCommand {

    static final String USAGE = "plan --capacity <unique impressions per bucket> [--name value ...]";

    private PlanCommand() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code (0 ok, 2 bad command line). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            if (OptionSources.helpRequested(args)) {
                out.print(OptionSources.help(USAGE, "Prints the Bloom filter sizing, memory, checkpoint size and truncation collisions of a"
                        + " planned deployment, next to the state exact dedup would need, and both state formats side by side: state per"
                        + " impression and genuine impressions dropped per day at 50%, 80%, 100% and 200% of plan.", DedupJobOptions.PLAN, false));
                return 0;
            }
            Configuration options = options(args);
            DedupPlan plan = PlanOptions.plan(options);
            out.print(new CapacityReport(plan).render());
            out.print(pageCache(plan, PlanOptions.pageCacheBudget(options)));
            return 0;
        } catch (InvalidOptionException e) {
            err.println("plan: " + e.getMessage());
            return 2;
        }
    }

    /** The plan of the arguments, as the job would build it from the same arguments. */
    static DedupPlan plan(String... args) {
        return PlanOptions.plan(options(args));
    }

    /** Flink's default TaskManager (process 1728m): its task heap, the example {@code plan} sizes a share of it on. */
    static final long FLINK_DEFAULT_TASK_HEAP_BYTES = 384L << 20;

    /**
     * The page-group cache's line: its budget, the groups it holds and the impressions their pages cover per
     * bucket; for a share of the task heap, worked on Flink's default TaskManager with 4 slots.
     */
    static String pageCache(DedupPlan plan, PageCacheBudget budget) {
        if (!budget.isShareOfTaskHeap()) {
            return "Page-group cache per subtask: " + holding(plan, budget.fixedBytes()) + "\n";
        }
        return "Page-group cache per subtask: " + budget.describe() + " (--page-cache-bytes fixes it); with 4 slots on Flink's default"
                + " TaskManager (384 MiB of task heap): " + holding(plan, PageCacheBudget.shareOf(FLINK_DEFAULT_TASK_HEAP_BYTES, 4)) + "\n"
                + "  On rocksdb, behind it: an off-heap tier in the operator's share of the slot's managed memory: half a slot's with"
                + " Flink's consumer weights (64 MiB there), three quarters with taskmanager.memory.managed.consumer-weights: "
                + PageCacheBudget.TIER_CONSUMER_WEIGHTS + " in the cluster's configuration (96 MiB; a job cannot set it).\n";
    }

    private static String holding(DedupPlan plan, long bytes) {
        if (bytes == 0) {
            return "off (--page-cache-bytes 0)";
        }
        long perGroup = DedupSettings.pageCacheBytesPerGroup(plan);
        long groups = Math.max(1, bytes / perGroup);
        long pagesPerShard = Math.max(1, (plan.firstLayerGeometry().bytes() + plan.pageBytes() - 1) / plan.pageBytes());
        return String.format(java.util.Locale.ROOT,
                "%s = %,d groups of %,d B (%d live buckets x %d B pages); one shard's pages on plan are %,d groups: the cache holds"
                        + " %.2f shards' worth",
                PageCacheBudget.describeBytes(bytes), groups, perGroup, plan.liveBuckets(), plan.pageBytes(), pagesPerShard,
                (double) groups / pagesPerShard);
    }

    private static Configuration options(String... args) {
        Configuration options = Configuration.fromMap(OptionSources.fromArguments(args, DedupJobOptions.PLAN, false));
        OptionValues.check(options, DedupJobOptions.PLAN);
        if (!options.contains(DedupJobOptions.CAPACITY)) {
            throw new InvalidOptionException("Missing required option --" + DedupJobOptions.CAPACITY.key() + ": "
                    + DedupJobOptions.descriptionOf(DedupJobOptions.CAPACITY) + " Run with --help for the list.");
        }
        return options;
    }
}
