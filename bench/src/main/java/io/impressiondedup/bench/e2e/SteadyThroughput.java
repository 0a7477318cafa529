package io.impressiondedup.bench.e2e;

import io.impressiondedup.testdata.generate.ValueFormat;
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
 * clients, JIT, the final checkpoint and commit) that is no property of the record rate, and varies
 * by seconds from run to run on a shared machine. So each run's rate is read while it runs, from
 * the output topic's end offsets between 10% and 90% of its output ({@link OutputProgress}), and its
 * fixed cost is its net runtime less its records at that rate. Rounds interleave the variants (A, B,
 * C, then again), and each round's ratio is taken against the byte pass-through of that round, so a
 * slow minute of the shared machine weighs on neighbours alike; the report gives the median of the
 * rounds and their range.
 */
@Command(name = "bench/run-headline.sh", sortOptions = false, showDefaultValues = true, usageHelpWidth = 100,
        description = "Steady end-to-end throughput of each variant as a fraction of a byte pass-through on the same cluster.")
public final class SteadyThroughput implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", required = true, description = "The Kafka broker to run against.")
    String bootstrapServers;

    @Option(names = "--records", defaultValue = "4000000", description = "Records of the input (about 20% duplicates).")
    long records;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds (each runs every variant once).")
    int rounds;

    @Option(names = "--variants", defaultValue = "byte-pass-through,pass-through,bloom-heap,bloom-rocksdb",
            description = "Variants, comma-separated; byte-pass-through is always run (the baseline), and"
                    + " byte-pass-through-avro with any Avro variant (the baseline of those: same impressions, Avro bytes).")
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

    public static void main(String[] args) {
        System.exit(new CommandLine(new SteadyThroughput()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (records < 100_000 || rounds < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "need --records >= 100000 and --rounds >= 1, got " + records + ", " + rounds);
        }
        List<Variant> order = new ArrayList<>(List.of(Variant.BYTE_PASS_THROUGH));
        for (Variant variant : Arrays.stream(variants.split(",")).map(Variant::byId).toList()) {
            for (Variant needed : List.of(variant.baseline(), variant)) {
                if (!order.contains(needed)) {
                    order.add(needed);
                }
            }
        }
        Files.createDirectories(workDir);
        Instant started = Instant.now();
        Map<Variant, List<JobRun.Result>> runs = new EnumMap<>(Variant.class);
        try (BenchKafka kafka = new BenchKafka(bootstrapServers)) {
            Map<ValueFormat, Workload> inputs = new EnumMap<>(ValueFormat.class);
            for (Variant variant : order) {
                if (!inputs.containsKey(variant.format)) {
                    inputs.put(variant.format, Workload.generate(kafka, records, seed, workDir, variant.format));
                }
            }
            System.out.println("-- warm-up run (not reported)");
            JobRun.run(Variant.PASS_THROUGH, inputs.get(ValueFormat.JSON), kafka, "warm-up", workDir, parallelism);
            for (int round = 1; round <= rounds; round++) {
                System.out.printf("-- round %d of %d%n", round, rounds);
                for (Variant variant : order) {
                    runs.computeIfAbsent(variant, v -> new ArrayList<>())
                            .add(JobRun.run(variant, inputs.get(variant.format), kafka, variant.id() + "-" + round, workDir, parallelism));
                }
            }
            for (Workload input : inputs.values()) {
                kafka.delete(input.inputTopic);
            }
        }
        String report = report(order, runs, started);
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

    private String report(List<Variant> order, Map<Variant, List<JobRun.Result>> pairs, Instant started) throws IOException {
        StringBuilder r = new StringBuilder();
        r.append(String.format(Locale.ROOT, "Steady throughput vs a byte pass-through, %s, %d rounds of %,d records,"
                + " parallelism %d, 4 input partitions, exactly-once, checkpoints every 10 s%n", started, rounds, records, parallelism));
        Machine machine = Machine.describe();
        r.append(String.format(Locale.ROOT, "%s, %d cores, %.1f GiB, Java %s; load average at the end: %s%n", machine.cpuModel(),
                machine.cores(), machine.memoryBytes() / (double) (1L << 30), machine.javaVersion(), loadAverage()));
        r.append("| Variant | Steady records/s (median) | Ratio to byte pass-through of the same input (median of rounds) | Ratio range |"
                + " Fixed cost s (median) |"
                + " Fixed cost / pass-through's |").append(System.lineSeparator());
        r.append("|---|---:|---:|---|---:|---:|").append(System.lineSeparator());
        for (Variant variant : order) {
            List<JobRun.Result> runs = pairs.get(variant);
            List<JobRun.Result> baseline = pairs.get(variant.baseline());
            List<Double> ratios = new ArrayList<>();
            List<Double> fixedRatios = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                ratios.add(runs.get(i).steadyRate() / baseline.get(i).steadyRate());
                fixedRatios.add(runs.get(i).fixedSeconds() / baseline.get(i).fixedSeconds());
            }
            r.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f-%.2f | %.1f | %.2f |%n", variant.label,
                    BenchmarkResults.median(runs.stream().map(JobRun.Result::steadyRate).toList()), BenchmarkResults.median(ratios),
                    ratios.stream().mapToDouble(d -> d).min().orElse(0), ratios.stream().mapToDouble(d -> d).max().orElse(0),
                    BenchmarkResults.median(runs.stream().map(JobRun.Result::fixedSeconds).toList()), BenchmarkResults.median(fixedRatios)));
        }
        r.append(System.lineSeparator()).append("Runs (steady records/s, net runtime s, last checkpoint's state bytes):").append(System.lineSeparator());
        for (Variant variant : order) {
            StringBuilder line = new StringBuilder("  " + variant.id() + ":");
            for (JobRun.Result p : pairs.get(variant)) {
                line.append(String.format(Locale.ROOT, " %,.0f/%.1f/%,d", p.steadyRate(), p.seconds(), p.checkpointBytes()));
            }
            r.append(line).append(System.lineSeparator());
        }
        return r.toString();
    }
}
