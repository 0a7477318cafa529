package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.e2e.BenchmarkSettings.Section;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Runs the end-to-end benchmarks against a Kafka broker and writes {@code BENCHMARKS-MINICLUSTER.md} with its
 * plots. Every figure in the report comes from this run: nothing is carried over from earlier ones.
 *
 * <p>Runs of the throughput section are interleaved (variant A, B, C, then A, B, C again) so that
 * a slow minute of a shared machine spreads over all variants instead of hitting one, and the
 * report gives medians with the spread next to them.
 *
 * <p>The command line ({@link BenchmarkSettings.Options}, picocli): {@code --help} lists the options
 * with their defaults; a bad command line exits with 2 naming the option, a failed run with 1.
 */
@Command(name = "bench/run-e2e.sh", sortOptions = false, showDefaultValues = true, abbreviateSynopsis = true, usageHelpWidth = 100,
        description = "End-to-end benchmarks: this job against pass-through, exact keyed state, Flink SQL and Redis, on a real"
                + " Kafka broker; writes BENCHMARKS-MINICLUSTER.md and plots.")
public final class EndToEndBenchmark implements Callable<Integer> {

    /** The FPP every filter in the benchmarks is planned for: the job's default. */
    static final double FPP = 0.001;
    static final double[] FPP_LOADS = {0.5, 1.0, 1.5, 2.0, 3.0, 4.0};

    @Mixin
    BenchmarkSettings.Options options;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help.")
    boolean help;

    private EndToEndBenchmark() {}

    public static void main(String[] args) {
        int exit = execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** Parses the command line and runs; exit code 0 done (or help), 1 the benchmark failed, 2 a bad command line. */
    static int execute(String... args) {
        PrintWriter err = new PrintWriter(System.err, true);
        CommandLine commandLine = new CommandLine(new EndToEndBenchmark())
                .registerConverter(Duration.class, TimeUtils::parseDuration)
                .setOverwrittenOptionsAllowed(true)
                .setErr(err)
                .setParameterExceptionHandler((e, arguments) -> badCommandLine(e, err));
        try {
            return commandLine.execute(BenchmarkSettings.Options.withConfigFile(commandLine, args));
        } catch (ParameterException e) {
            return badCommandLine(e, err);
        } finally {
            err.flush();
        }
    }

    private static int badCommandLine(ParameterException e, PrintWriter err) {
        CommandSpec spec = e.getCommandLine().getCommandSpec();
        err.println(spec.qualifiedName() + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Run '" + spec.qualifiedName() + " --help' for the options.");
        return spec.exitCodeOnInvalidInput();
    }

    @Override
    public Integer call() throws Exception {
        BenchmarkSettings settings = options.settings();
        Files.createDirectories(settings.workDir());
        run(settings);
        System.out.println("wrote " + settings.out().resolve(BenchmarkReport.FILE_NAME));
        return 0;
    }

    static BenchmarkResults run(BenchmarkSettings settings) throws Exception {
        Instant started = Instant.now();
        BenchmarkResults results = new BenchmarkResults(started, Machine.describe());
        try (BenchKafka kafka = new BenchKafka(settings.bootstrapServers())) {
            if (settings.runs(Section.THROUGHPUT) || settings.runs(Section.SCALING) && settings.scalingRecords().contains(settings.records())) {
                System.out.printf("== throughput and state: %,d records, %d runs of %s%n", settings.records(), settings.runs(),
                        settings.variants());
                Workload workload = Workload.generate(kafka, settings.records(), settings.seed(), settings.workDir());
                results.workload = workload;
                results.throughput = throughput(settings, workload, kafka);
                writeReport(settings, results);
                kafka.delete(workload.inputTopic);
            }
            if (settings.runs(Section.REDIS)) {
                System.out.printf("== Redis: %,d records%n", settings.records());
                DedupKeys keys = DedupKeys.of(settings.records(), settings.seed());
                results.redisKeys = keys.size();
                results.redisUnique = keys.expectedUnique;
                results.redis = RedisComparison.run(settings.redisServer(), keys, settings.workDir());
                writeReport(settings, results);
            }
            if (settings.runs(Section.FPP)) {
                System.out.printf("== accuracy under load: capacity %,d, FPP %s%n", settings.fppCapacity(), FPP);
                results.fppUnderLoad = FppUnderLoad.run(settings.fppCapacity(), FPP, FPP_LOADS, settings.fppQueries());
                writeReport(settings, results);
            }
            if (settings.runs(Section.SCALING)) {
                results.scaling = scaling(settings, results, kafka);
            }
        }
        writeReport(settings, results);
        return results;
    }

    /** Writes the report of the sections done so far, so that a run cut short still leaves its figures. */
    private static void writeReport(BenchmarkSettings settings, BenchmarkResults results) throws java.io.IOException {
        results.duration = Duration.between(results.started, Instant.now());
        new BenchmarkReport(settings, results).write(settings.out());
    }

    private static Map<Variant, List<JobRun.Result>> throughput(BenchmarkSettings settings, Workload workload, BenchKafka kafka)
            throws Exception {
        Map<Variant, List<JobRun.Result>> runs = new EnumMap<>(Variant.class);
        List<Variant> variants = new ArrayList<>(settings.variants());
        if (settings.runs(Section.SCALING)) {
            settings.scalingVariants().stream().filter(v -> !variants.contains(v)).forEach(variants::add);
        }
        // The first Flink job in this JVM pays for class loading and JIT compilation; not reported.
        System.out.println("-- warm-up run (not reported)");
        JobRun.run(Variant.PASS_THROUGH, workload, kafka, "warm-up-" + settings.records(), settings.workDir());
        for (int run = 1; run <= settings.runs(); run++) {
            System.out.printf("-- run %d of %d%n", run, settings.runs());
            for (Variant variant : variants) {
                runs.computeIfAbsent(variant, v -> new ArrayList<>())
                        .add(JobRun.run(variant, workload, kafka, variant.id() + "-" + settings.records() + "-" + run, settings.workDir()));
            }
        }
        return runs;
    }

    private static Map<Long, ScalingPoint> scaling(BenchmarkSettings settings, BenchmarkResults results, BenchKafka kafka)
            throws Exception {
        Map<Long, ScalingPoint> points = new LinkedHashMap<>();
        for (long records : settings.scalingRecords()) {
            System.out.printf("== scaling: %,d records%n", records);
            if (records == settings.records() && results.throughput != null) {
                Map<Variant, JobRun.Result> medians = new EnumMap<>(Variant.class);
                for (Variant variant : settings.scalingVariants()) {
                    medians.put(variant, BenchmarkResults.medianRun(results.throughput.get(variant)));
                }
                points.put(records, new ScalingPoint(results.workload.uniqueImpressions(), medians));
                continue;
            }
            Workload workload = Workload.generate(kafka, records, settings.seed(), settings.workDir());
            Map<Variant, JobRun.Result> runs = new EnumMap<>(Variant.class);
            for (Variant variant : settings.scalingVariants()) {
                runs.put(variant, JobRun.run(variant, workload, kafka, variant.id() + "-" + records + "-scaling", settings.workDir()));
            }
            points.put(records, new ScalingPoint(workload.uniqueImpressions(), runs));
            kafka.delete(workload.inputTopic);
        }
        return points;
    }

    /** One input size of the scaling section: its unique impressions and one run per variant. */
    record ScalingPoint(long uniqueImpressions, Map<Variant, JobRun.Result> runs) {}
}
