package io.impressiondedup.bench.e2e;

import io.impressiondedup.state.cli.CommandLine;
import io.impressiondedup.state.cli.CommandLineOptions;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** What one end-to-end benchmark run measures, from its command line. */
record BenchmarkSettings(
        String bootstrapServers,
        long records,
        int runs,
        List<Variant> variants,
        List<Long> scalingRecords,
        List<Variant> scalingVariants,
        String redisServer,
        int fppCapacity,
        int fppQueries,
        long seed,
        Set<Section> sections,
        Path out,
        Path workDir) {

    /** The parts of the report; a quick run may pick some. */
    enum Section {
        THROUGHPUT, REDIS, FPP, SCALING;

        static Section byId(String id) {
            return valueOf(id.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("bootstrap-servers").stringType().noDefaultValue()
            .withDescription("The Kafka broker every run reads from and writes to (bench/run-e2e.sh starts one).");
    static final ConfigOption<Long> RECORDS = ConfigOptions.key("records").longType().defaultValue(5_000_000L)
            .withDescription("Generated input records for the throughput, state and Redis comparisons (~20% duplicates).");
    static final ConfigOption<Integer> RUNS = ConfigOptions.key("runs").intType().defaultValue(3)
            .withDescription("Runs of each variant over the same input, interleaved; the report gives the median.");
    static final ConfigOption<String> VARIANTS = ConfigOptions.key("variants").stringType()
            .defaultValue(String.join(",", Variant.ids()))
            .withDescription("Variants compared for throughput and state, comma-separated.");
    static final ConfigOption<String> SCALING = ConfigOptions.key("scaling").stringType()
            .defaultValue("1000000,5000000,20000000")
            .withDescription("Input sizes of the scaling section (one run each; a size equal to --records reuses its medians).");
    static final ConfigOption<String> SCALING_VARIANTS = ConfigOptions.key("scaling-variants").stringType()
            .defaultValue(Variant.BLOOM_ROCKSDB.id() + "," + Variant.EXACT_ROCKSDB.id())
            .withDescription("Variants run at every scaling size.");
    static final ConfigOption<String> REDIS_SERVER = ConfigOptions.key("redis-server").stringType().defaultValue("redis-server")
            .withDescription("The redis-server executable, started on a free loopback port for the Redis comparison.");
    static final ConfigOption<Integer> FPP_CAPACITY = ConfigOptions.key("fpp-capacity").intType().defaultValue(1_000_000)
            .withDescription("Planned capacity of the filters in the accuracy-under-load section.");
    static final ConfigOption<Integer> FPP_QUERIES = ConfigOptions.key("fpp-queries").intType().defaultValue(2_000_000)
            .withDescription("Absent impressions queried at each load to measure the FPP at that moment.");
    static final ConfigOption<Long> SEED = ConfigOptions.key("seed").longType().defaultValue(7L)
            .withDescription("Generator seed: the same seed gives the same input.");
    static final ConfigOption<String> SECTIONS = ConfigOptions.key("sections").stringType()
            .defaultValue("throughput,redis,fpp,scaling")
            .withDescription("Sections to run: throughput (with state), redis, fpp, scaling.");
    static final ConfigOption<String> OUT = ConfigOptions.key("out").stringType().defaultValue("docs")
            .withDescription("Where BENCHMARKS.md and img/*.png are written.");
    static final ConfigOption<String> WORK_DIR = ConfigOptions.key("work-dir").stringType().defaultValue("bench/target/e2e")
            .withDescription("Scratch space: ground truth, checkpoints, redis-server's log.");

    static final CommandLineOptions OPTIONS = new CommandLineOptions("bench/run-e2e.sh",
                    "End-to-end benchmarks: this job against pass-through, exact keyed state, Flink SQL and Redis, on a real"
                            + " Kafka broker; writes BENCHMARKS.md and plots.")
            .add(BOOTSTRAP_SERVERS, RECORDS, RUNS, VARIANTS, SCALING, SCALING_VARIANTS, REDIS_SERVER, FPP_CAPACITY, FPP_QUERIES, SEED,
                    SECTIONS, OUT, WORK_DIR)
            .required(BOOTSTRAP_SERVERS)
            .require(RECORDS, r -> r >= 10_000 && r <= Integer.MAX_VALUE, "between 10000 and 2^31-1 records")
            .require(RUNS, r -> r >= 1, "at least 1 run")
            .require(VARIANTS, v -> knownVariants(csv(v)), "variant ids among " + Variant.ids())
            .require(SCALING_VARIANTS, v -> knownVariants(csv(v)), "variant ids among " + Variant.ids())
            .require(SCALING, v -> positiveCounts(csv(v)), "record counts between 10000 and 2^31-1")
            .require(FPP_CAPACITY, c -> c >= 1000, "at least 1000")
            .require(FPP_QUERIES, q -> q >= 1000, "at least 1000")
            .require(SECTIONS, v -> knownSections(csv(v)), "sections among throughput, redis, fpp, scaling");

    static BenchmarkSettings parse(CommandLine line) {
        return new BenchmarkSettings(
                line.getRequired(BOOTSTRAP_SERVERS),
                line.get(RECORDS),
                line.get(RUNS),
                csv(line.get(VARIANTS)).stream().map(Variant::byId).toList(),
                csv(line.get(SCALING)).stream().map(s -> Long.parseLong(s.trim())).sorted().toList(),
                csv(line.get(SCALING_VARIANTS)).stream().map(Variant::byId).toList(),
                line.get(REDIS_SERVER),
                line.get(FPP_CAPACITY),
                line.get(FPP_QUERIES),
                line.get(SEED),
                csv(line.get(SECTIONS)).stream().map(Section::byId).collect(Collectors.toCollection(() -> EnumSet.noneOf(Section.class))),
                Path.of(line.get(OUT)),
                Path.of(line.get(WORK_DIR)));
    }

    boolean runs(Section section) {
        return sections.contains(section);
    }

    /** The comma-separated items of a list option (Flink's own list options split on ';'). */
    static List<String> csv(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
    }

    private static boolean knownVariants(List<String> ids) {
        return !ids.isEmpty() && ids.stream().allMatch(id -> Variant.ids().contains(id.trim()));
    }

    private static boolean positiveCounts(List<String> counts) {
        try {
            return counts.stream().mapToLong(s -> Long.parseLong(s.trim())).allMatch(c -> c >= 10_000 && c <= Integer.MAX_VALUE);
        } catch (NumberFormatException notANumber) {
            return false;
        }
    }

    private static boolean knownSections(List<String> ids) {
        try {
            ids.forEach(Section::byId);
            return true;
        } catch (IllegalArgumentException unknown) {
            return false;
        }
    }
}
