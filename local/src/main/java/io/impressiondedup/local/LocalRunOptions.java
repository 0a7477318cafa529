package io.impressiondedup.local;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.OptionValues;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/**
 * The local run's command line: its own options, the job's options it passes on (declared once, in
 * {@link DedupJobOptions}, description and default with them), and the limits a run on one machine
 * keeps to.
 */
final class LocalRunOptions {

    static final ConfigOption<Long> COUNT = ConfigOptions.key("count").longType().defaultValue(1_000_000L)
            .withDescription("Impressions to generate (with duplicates, late, malformed and far-future records).");
    static final ConfigOption<Double> DUPLICATE_SHARE = ConfigOptions.key("duplicate-share").doubleType().defaultValue(0.20)
            .withDescription("Share of generated records that are copies of earlier impressions.");
    static final ConfigOption<Integer> PARTITIONS = ConfigOptions.key("partitions").intType().defaultValue(4)
            .withDescription("Partitions of the input topic.");
    static final ConfigOption<Integer> WEB_PORT = ConfigOptions.key("web-port").intType().defaultValue(8081)
            .withDescription("Port of the Flink web UI (the next free one if taken).");
    static final ConfigOption<String> WORK_DIR = ConfigOptions.key("work-dir").stringType().defaultValue("local-run")
            .withDescription("Where the ground truth, checkpoints, report and full log go.");
    static final ConfigOption<Long> SEED = ConfigOptions.key("seed").longType().defaultValue(1L)
            .withDescription("Generator seed.");
    static final ConfigOption<Double> DELAYED_SHARE = ConfigOptions.key("delayed-share").doubleType().defaultValue(0.01)
            .withDescription("Share of requests from delayed clients (mobile, offline): their impressions keep their event time"
                    + " but reach Kafka --delay-min to --delay-max later, and must still be deduplicated (0: none).");
    static final ConfigOption<Duration> DELAY_MIN = ConfigOptions.key("delay-min").durationType().defaultValue(Duration.ofHours(1))
            .withDescription("Shortest delay of a delayed client's impressions (uniform up to --delay-max).");
    static final ConfigOption<Duration> DELAY_MAX = ConfigOptions.key("delay-max").durationType().defaultValue(Duration.ofHours(20))
            .withDescription("Longest delay of a delayed client's impressions; at most --allowed-lateness minus 1h.");

    /**
     * The local run's own options, and the job's options it passes on: the FPP, allowed lateness, state
     * backend and parallelism. In the order of {@code --help}.
     */
    static final List<ConfigOption<?>> ALL = List.of(COUNT, DUPLICATE_SHARE, DedupJobOptions.FPP, DedupJobOptions.PARALLELISM,
            PARTITIONS, DedupJobOptions.STATE_BACKEND, WEB_PORT, WORK_DIR, SEED, DELAYED_SHARE, DELAY_MIN, DELAY_MAX,
            DedupJobOptions.ALLOWED_LATENESS);
    /** The local run's parallelism where {@code --parallelism} is not given (the job's default is the cluster's). */
    static final int DEFAULT_PARALLELISM = 2;
    static final String USAGE = "mvn -B -q -pl local exec:exec@local-run -Dlocal-run.args=\"[--name value ...]\"";
    static final String SUMMARY = "Runs the dedup job end to end on this machine: Kafka broker, generated impressions, Flink MiniCluster"
            + " with the web UI, and a report checked against the ground truth.";

    private LocalRunOptions() {}

    /** The help text, generated from the declarations of {@link #ALL}. */
    static String help() {
        return OptionSources.help(USAGE, SUMMARY, ALL, false);
    }

    /** The options of {@code args}, typed and checked; fails naming the option. */
    static Configuration parse(String... args) {
        Configuration options = Configuration.fromMap(OptionSources.fromArguments(args, ALL, false));
        OptionValues.check(options, ALL);
        require(options.get(COUNT) >= 1000, COUNT, "at least 1000 records");
        require(options.get(DUPLICATE_SHARE) >= 0 && options.get(DUPLICATE_SHARE) <= 0.8, DUPLICATE_SHARE, "a share in [0, 0.8]");
        require(parallelism(options) <= 16, DedupJobOptions.PARALLELISM, "an integer in [1, 16]");
        require(options.get(PARTITIONS) >= 1, PARTITIONS, "a positive number of partitions");
        return options;
    }

    /** The job's parallelism in the local run: {@code --parallelism}, else {@link #DEFAULT_PARALLELISM}. */
    static int parallelism(Configuration options) {
        return options.getOptional(DedupJobOptions.PARALLELISM).orElse(DEFAULT_PARALLELISM);
    }

    private static void require(boolean valid, ConfigOption<?> option, String expected) {
        if (!valid) {
            throw new InvalidOptionException("Invalid value for --" + option.key() + ": expected " + expected);
        }
    }
}
