package io.impressiondedup.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The headline of the end-to-end benchmarks: each variant's <b>steady</b> throughput as a fraction of
 * a byte pass-through's ({@link BytePassThrough}) on the same cluster, in the same run.
 *
 * <p><b>Steady rate.</b> A bounded Flink job's net runtime includes a fixed cost (deployment, Kafka
 * clients, first checkpoint, JIT, the final commit) that is no property of the record rate. Every
 * variant therefore runs over two inputs, {@code --small} and {@code --large} records (the same
 * generator, the same seed), back to back, and its steady rate is the difference: (large - small) /
 * (t(large) - t(small)); its fixed cost is t(small) - small / steady. Rounds interleave the
 * variants (A small, A large, B small, B large, ..., then again), and each round's ratio is taken
 * against the byte pass-through of that round, so a slow minute of the shared machine weighs on
 * neighbours alike; the report gives the median of the rounds and their range.
 */
@Command(name = "bench/run-headline.sh", sortOptions = false, showDefaultValues = true, usageHelpWidth = 100,
        description = "Steady end-to-end throughput of each variant as a fraction of a byte pass-through on the same cluster.")
public final class SteadyThroughput implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", required = true, description = "The Kafka broker to run against.")
    String bootstrapServers;

    @Option(names = "--small", defaultValue = "1000000", description = "Records of the small input.")
    long small;

    @Option(names = "--large", defaultValue = "4000000", description = "Records of the large input.")
    long large;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds (each runs every variant on both inputs).")
    int rounds;

    @Option(names = "--variants", defaultValue = "byte-pass-through,pass-through,bloom-heap,bloom-rocksdb",
            description = "Variants, comma-separated; byte-pass-through is always run (the baseline).")
    String variants;

    @Option(names = "--parallelism", defaultValue = "" + JobRun.PARALLELISM,
            description = "Slots of the local cluster and parallelism of every job (the scaling check runs 1, 2 and 4).")
    int parallelism;

    @Option(names = "--seed", defaultValue = "7", description = "Generator seed.")
    long seed;

    @Option(names = "--work-dir", defaultValue = "bench/target/e2e", description = "Ground truths and checkpoints.")
    Path workDir;

    @Option(names = "--out", description = "Also write the report to this file.")
    Path out;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help.")
    boolean help;

    /** One variant's pair of runs in one round. */
    record Pair(JobRun.Result small, JobRun.Result large) {
        double steadyRate() {
            return (large.records() - small.records()) / (large.seconds() - small.seconds());
        }

        double fixedSeconds() {
            return small.seconds() - small.records() / steadyRate();
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SteadyThroughput()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (small < 10_000 || large < 2 * small || rounds < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "need --small >= 10000, --large >= 2 x --small and --rounds >= 1, got " + small + ", " + large + ", " + rounds);
        }
        List<Variant> order = new ArrayList<>(List.of(Variant.BYTE_PASS_THROUGH));
        Arrays.stream(variants.split(",")).map(Variant::byId).filter(v -> !order.contains(v)).forEach(order::add);
        Files.createDirectories(workDir);
        Instant started = Instant.now();
        Map<Variant, List<Pair>> pairs = new EnumMap<>(Variant.class);
        try (BenchKafka kafka = new BenchKafka(bootstrapServers)) {
            Workload smallInput = Workload.generate(kafka, small, seed, workDir);
            Workload largeInput = Workload.generate(kafka, large, seed, workDir);
            System.out.println("-- warm-up run (not reported)");
            JobRun.run(Variant.PASS_THROUGH, smallInput, kafka, "warm-up-" + small, workDir, parallelism);
            for (int round = 1; round <= rounds; round++) {
                System.out.printf("-- round %d of %d%n", round, rounds);
                for (Variant variant : order) {
                    JobRun.Result s = JobRun.run(variant, smallInput, kafka, variant.id() + "-s-" + round, workDir, parallelism);
                    JobRun.Result l = JobRun.run(variant, largeInput, kafka, variant.id() + "-l-" + round, workDir, parallelism);
                    Pair pair = new Pair(s, l);
                    pairs.computeIfAbsent(variant, v -> new ArrayList<>()).add(pair);
                    System.out.printf(Locale.ROOT, "  %-40s steady %,10.0f records/s, fixed %5.1f s%n", variant.label, pair.steadyRate(),
                            pair.fixedSeconds());
                }
            }
            kafka.delete(smallInput.inputTopic, largeInput.inputTopic);
        }
        String report = report(order, pairs, started);
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report);
        }
        return 0;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private String report(List<Variant> order, Map<Variant, List<Pair>> pairs, Instant started) throws IOException {
        StringBuilder r = new StringBuilder();
        r.append(String.format(Locale.ROOT, "Steady throughput vs a byte pass-through, %s, %d rounds, inputs %,d and %,d records,"
                + " parallelism %d, 4 input partitions, exactly-once%n", started, rounds, small, large, parallelism));
        Machine machine = Machine.describe();
        r.append(String.format(Locale.ROOT, "%s, %d cores, %.1f GiB, Java %s; load average at the end: %s%n", machine.cpuModel(),
                machine.cores(), machine.memoryBytes() / (double) (1L << 30), machine.javaVersion(), loadAverage()));
        r.append("| Variant | Steady records/s (median) | Ratio to byte pass-through (median of rounds) | Ratio range | Fixed cost s (median) |"
                + " Fixed cost / pass-through's |").append(System.lineSeparator());
        r.append("|---|---:|---:|---|---:|---:|").append(System.lineSeparator());
        List<Pair> baseline = pairs.get(Variant.BYTE_PASS_THROUGH);
        for (Variant variant : order) {
            List<Pair> runs = pairs.get(variant);
            List<Double> ratios = new ArrayList<>();
            List<Double> fixedRatios = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                ratios.add(runs.get(i).steadyRate() / baseline.get(i).steadyRate());
                fixedRatios.add(runs.get(i).fixedSeconds() / baseline.get(i).fixedSeconds());
            }
            r.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f-%.2f | %.1f | %.2f |%n", variant.label,
                    BenchmarkResults.median(runs.stream().map(Pair::steadyRate).toList()), BenchmarkResults.median(ratios),
                    ratios.stream().mapToDouble(d -> d).min().orElse(0), ratios.stream().mapToDouble(d -> d).max().orElse(0),
                    BenchmarkResults.median(runs.stream().map(Pair::fixedSeconds).toList()), BenchmarkResults.median(fixedRatios)));
        }
        r.append(System.lineSeparator()).append("Runs (seconds of net runtime, small / large):").append(System.lineSeparator());
        for (Variant variant : order) {
            StringBuilder line = new StringBuilder("  " + variant.id() + ":");
            for (Pair p : pairs.get(variant)) {
                line.append(String.format(Locale.ROOT, " %.1f/%.1f", p.small().seconds(), p.large().seconds()));
            }
            r.append(line).append(System.lineSeparator());
        }
        return r.toString();
    }
}
