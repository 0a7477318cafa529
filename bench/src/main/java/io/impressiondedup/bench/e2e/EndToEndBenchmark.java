package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.e2e.BenchmarkSettings.Section;
import io.impressiondedup.state.cli.CommandLine;
import io.impressiondedup.state.cli.InvalidCommandLineException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the end-to-end benchmarks against a Kafka broker and writes {@code BENCHMARKS.md} with its
 * plots. Every figure in the report comes from this run: nothing is carried over from earlier ones.
 *
 * <p>Runs of the throughput section are interleaved (variant A, B, C, then A, B, C again) so that
 * a slow minute of a shared machine spreads over all variants instead of hitting one, and the
 * report gives medians with the spread next to them.
 */
public final class EndToEndBenchmark {

    /** The FPP every filter in the benchmarks is planned for: the job's default. */
    static final double FPP = 0.001;
    static final double[] FPP_LOADS = {0.5, 1.0, 1.5, 2.0, 3.0, 4.0};

    private EndToEndBenchmark() {}

    public static void main(String[] args) throws Exception {
        CommandLine line;
        try {
            line = BenchmarkSettings.OPTIONS.parse(args);
        } catch (InvalidCommandLineException invalid) {
            System.err.println(invalid.getMessage());
            System.exit(2);
            return;
        }
        if (line.helpRequested()) {
            System.out.println(BenchmarkSettings.OPTIONS.help());
            return;
        }
        BenchmarkSettings settings = BenchmarkSettings.parse(line);
        Files.createDirectories(settings.workDir());
        run(settings);
        System.out.println("wrote " + settings.out().resolve("BENCHMARKS.md"));
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
