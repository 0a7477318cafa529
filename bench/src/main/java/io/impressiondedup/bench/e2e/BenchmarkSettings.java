package io.impressiondedup.bench.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** What one end-to-end benchmark run measures, from its command line ({@link Options}). */
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

    /**
     * The default of {@code --variants}: the comparison of the report, in {@link Variant}'s order (the
     * {@code --stats-topic} and Avro variants are for their own sections of bench/README.md, asked for
     * by name). A constant rather than derived from {@code Variant} so that {@code --help} does not
     * initialize {@link Variant}, whose stages need the job's classes; {@link Options#settings()}
     * checks that each is a variant.
     */
    static final String DEFAULT_VARIANTS = "byte-pass-through,pass-through,pass-through-keyed,bloom-rocksdb,bloom-heap,exact-rocksdb,exact-heap,sql-rocksdb";

    /** The parts of the report; a quick run may pick some. */
    enum Section {
        THROUGHPUT, REDIS, FPP, SCALING;

        static Section byId(String id) {
            return valueOf(id.trim().toUpperCase(Locale.ROOT));
        }
    }

    boolean runs(Section section) {
        return sections.contains(section);
    }

    /** The comma-separated items of a list option, trimmed, empty items ignored. */
    static List<String> csv(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
    }

    /**
     * The options of {@code bench/run-e2e.sh} (picocli, mixed into {@link EndToEndBenchmark}'s
     * command), one field per option. Lists are comma-separated ({@code --scaling 100000,300000});
     * an option given twice keeps its last value.
     */
    static final class Options {

        static final String CONFIG = "--config";

        @Option(names = "--bootstrap-servers", required = true,
                description = "The Kafka broker every run reads from and writes to (bench/run-e2e.sh starts one; required).")
        String bootstrapServers;

        @Option(names = "--records", defaultValue = "5000000",
                description = "Generated input records for the throughput, state and Redis comparisons (~20%% duplicates).")
        long records;

        @Option(names = "--runs", defaultValue = "3",
                description = "Runs of each variant over the same input, interleaved; the report gives the median.")
        int runs;

        @Option(names = "--variants", defaultValue = DEFAULT_VARIANTS,
                description = "Variants compared for throughput and state, comma-separated.")
        String variants;

        @Option(names = "--scaling", defaultValue = "1000000,5000000,20000000",
                description = "Input sizes of the scaling section (one run each; a size equal to --records reuses its medians).")
        String scaling;

        @Option(names = "--scaling-variants", defaultValue = "bloom-rocksdb,exact-rocksdb",
                description = "Variants run at every scaling size.")
        String scalingVariants;

        @Option(names = "--redis-server", defaultValue = "redis-server",
                description = "The redis-server executable, started on a free loopback port for the Redis comparison.")
        String redisServer;

        @Option(names = "--fpp-capacity", defaultValue = "1000000",
                description = "Planned capacity of the filters in the accuracy-under-load section.")
        int fppCapacity;

        @Option(names = "--fpp-queries", defaultValue = "2000000",
                description = "Absent impressions queried at each load to measure the FPP at that moment.")
        int fppQueries;

        @Option(names = "--seed", defaultValue = "7", description = "Generator seed: the same seed gives the same input.")
        long seed;

        @Option(names = "--sections", defaultValue = "throughput,redis,fpp,scaling",
                description = "Sections to run: throughput (with state), redis, fpp, scaling.")
        String sections;

        @Option(names = "--out", defaultValue = "docs", description = "Where BENCHMARKS-MINICLUSTER.md and img/*.png are written.")
        Path out;

        @Option(names = "--work-dir", defaultValue = "bench/target/e2e",
                description = "Scratch space: ground truth, checkpoints, redis-server's log.")
        Path workDir;

        @Option(names = CONFIG, paramLabel = "<file.properties>",
                description = "Read options from a properties file (keys without the leading dashes, such as records=300000);"
                        + " the command line wins.")
        Path config;

        @Spec(Spec.Target.MIXEE)
        CommandSpec spec;

        /** The options as settings; a value out of range fails naming the option. */
        BenchmarkSettings settings() {
            if (records < 10_000 || records > Integer.MAX_VALUE) {
                throw invalid("--records", records, "between 10000 and 2^31-1 records");
            }
            if (runs < 1) {
                throw invalid("--runs", runs, "at least 1 run");
            }
            if (fppCapacity < 1000) {
                throw invalid("--fpp-capacity", fppCapacity, "at least 1000");
            }
            if (fppQueries < 1000) {
                throw invalid("--fpp-queries", fppQueries, "at least 1000");
            }
            Set<Section> sectionSet = EnumSet.noneOf(Section.class);
            for (String id : csv(sections)) {
                try {
                    sectionSet.add(Section.byId(id));
                } catch (IllegalArgumentException unknown) {
                    throw invalid("--sections", sections, "sections among throughput, redis, fpp, scaling");
                }
            }
            List<Long> scalingRecords = new ArrayList<>();
            for (String count : csv(scaling)) {
                long parsed;
                try {
                    parsed = Long.parseLong(count);
                } catch (NumberFormatException notANumber) {
                    throw invalid("--scaling", scaling, "record counts between 10000 and 2^31-1");
                }
                if (parsed < 10_000 || parsed > Integer.MAX_VALUE) {
                    throw invalid("--scaling", scaling, "record counts between 10000 and 2^31-1");
                }
                scalingRecords.add(parsed);
            }
            if (!Variant.ids().containsAll(csv(DEFAULT_VARIANTS))) {
                throw new IllegalStateException("BenchmarkSettings.DEFAULT_VARIANTS " + DEFAULT_VARIANTS + " names a variant not in "
                        + Variant.ids());
            }
            return new BenchmarkSettings(
                    bootstrapServers,
                    records,
                    runs,
                    variants("--variants", variants),
                    scalingRecords.stream().sorted().toList(),
                    variants("--scaling-variants", scalingVariants),
                    redisServer,
                    fppCapacity,
                    fppQueries,
                    seed,
                    sectionSet,
                    out,
                    workDir);
        }

        private List<Variant> variants(String option, String value) {
            List<String> ids = csv(value);
            if (ids.isEmpty() || !Variant.ids().containsAll(ids)) {
                throw invalid(option, value, "variant ids among " + Variant.ids());
            }
            return ids.stream().map(Variant::byId).toList();
        }

        private ParameterException invalid(String option, Object value, String expected) {
            return new ParameterException(spec.commandLine(),
                    "Invalid value for option '" + option + "': '" + value + "' (expected " + expected + ")");
        }

        /**
         * {@code args} with the options of the {@code --config} file (the last one given, if any) in
         * front, as {@code --key=value}, so that the command line, parsed after them, wins. A key that
         * names no option, or a file that cannot be read, is a bad command line.
         */
        static String[] withConfigFile(CommandLine commandLine, String[] args) {
            String file = null;
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals(CONFIG) && i + 1 < args.length) {
                    file = args[++i];
                } else if (args[i].startsWith(CONFIG + "=")) {
                    file = args[i].substring(CONFIG.length() + 1);
                }
            }
            if (file == null) {
                return args;
            }
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(file))) {
                properties.load(in);
            } catch (IOException | RuntimeException e) {
                throw new ParameterException(commandLine, "Cannot read " + CONFIG + " " + file + ": " + e.getMessage(), e);
            }
            Map<String, String> sorted = new TreeMap<>();
            properties.forEach((key, value) -> sorted.put(key.toString().trim(), value.toString().trim()));
            List<String> expanded = new ArrayList<>();
            for (Map.Entry<String, String> property : sorted.entrySet()) {
                String name = "--" + property.getKey();
                OptionSpec option = commandLine.getCommandSpec().findOption(name);
                if (option == null || option.usageHelp() || name.equals(CONFIG) || !option.longestName().equals(name)) {
                    throw new ParameterException(commandLine, "Unknown option '" + property.getKey() + "' in " + CONFIG + " " + file);
                }
                expanded.add(name + "=" + property.getValue());
            }
            expanded.addAll(List.of(args));
            return expanded.toArray(String[]::new);
        }
    }
}
