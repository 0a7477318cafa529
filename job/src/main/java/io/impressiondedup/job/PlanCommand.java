package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import io.impressiondedup.job.config.PlanOptions;
import io.impressiondedup.operators.dedup.DedupSettings;
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
            out.print(pageCache(plan, PlanOptions.pageCacheBytes(options)));
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

    /** The page-group cache's line: its budget, the groups it holds and the impressions their pages cover per bucket. */
    static String pageCache(DedupPlan plan, long bytes) {
        if (bytes == 0) {
            return "Page-group cache per subtask: off (--page-cache-bytes 0)\n";
        }
        long perGroup = DedupSettings.pageCacheBytesPerGroup(plan);
        long groups = Math.max(1, bytes / perGroup);
        long pagesPerShard = Math.max(1, (plan.firstLayerGeometry().bytes() + plan.pageBytes() - 1) / plan.pageBytes());
        return String.format(java.util.Locale.ROOT,
                "Page-group cache per subtask: %s = %,d groups of %,d B (%d live buckets x %d B pages); one shard's pages on plan"
                        + " are %,d groups: the cache holds %.2f shards' worth%n",
                bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : String.format(java.util.Locale.ROOT, "%,d B", bytes), groups, perGroup,
                plan.liveBuckets(), plan.pageBytes(), pagesPerShard, (double) groups / pagesPerShard);
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
