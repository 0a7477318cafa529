package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * End-to-end latency of the running job: from an impression's Kafka timestamp (its send
 * time) to the moment a {@code read_committed} consumer of the output sees it. With exactly-once
 * output a record becomes visible only when the checkpoint after it commits, so the latency is about
 * half a checkpoint interval on average and up to one interval plus the checkpoint's duration and
 * the commit; the target is p99 &lt;= checkpoint interval + 1 s at 70% of the steady throughput.
 *
 * <p>Each run: fresh topics; the job (unbounded, the variant's dedup stage, the job's own Kafka
 * source and exactly-once sinks, {@link JobRun#PARALLELISM} slots on a local Flink cluster in this
 * JVM) started in the background; a {@link PacedProducer} writing generated impressions at a fixed
 * rate for {@code --duration}; a {@link VisibleLatency} reader on the output. Records sent in the
 * first {@code --warm-up} are left out of the figures (deployment, JIT, the first checkpoints). The
 * job is cancelled at the end and its topics and checkpoints deleted. Runs go variant by variant
 * within each checkpoint interval and rate, so neighbours share the machine's slow minutes alike.
 */
@Command(name = "bench/run-latency.sh", sortOptions = false, showDefaultValues = true, usageHelpWidth = 100,
        description = "End-to-end latency (Kafka timestamp to visible in read_committed output) at fixed input rates.")
public final class LatencyBenchmark implements Callable<Integer> {

    @Option(names = "--bootstrap-servers", required = true, description = "The Kafka broker to run against.")
    String bootstrapServers;

    @Option(names = "--rates", defaultValue = "20000", split = ",", description = "Input rates in records/s, comma-separated.")
    List<Long> rates;

    @Option(names = "--duration", converter = FlinkDuration.class, defaultValue = "60s", description = "How long the producer sends, per run (warm-up included).")
    Duration duration;

    @Option(names = "--warm-up", converter = FlinkDuration.class, defaultValue = "20s", description = "Records sent in this first part of a run are not measured.")
    Duration warmUp;

    @Option(names = "--jvm-warm-up", converter = FlinkDuration.class, defaultValue = "30s",
            description = "First, one run of this length, not reported (the first variant, rate and interval): the first run in a fresh"
                    + " JVM was seen to fall seconds behind where later ones did not. 0s to skip.")
    Duration jvmWarmUp;

    @Option(names = "--checkpoint-intervals", converter = FlinkDuration.class, defaultValue = "10s,2s", split = ",", description = "Checkpoint intervals to run.")
    List<Duration> checkpointIntervals;

    @Option(names = "--variants", defaultValue = "bloom-rocksdb,bloom-heap", description = "Variants, comma-separated.")
    String variants;

    @Option(names = "--seed", defaultValue = "7", description = "Generator seed.")
    long seed;

    @Option(names = "--work-dir", defaultValue = "bench/target/e2e", description = "Checkpoints.")
    Path workDir;

    @Option(names = "--out", description = "Also write the report to this file.")
    Path out;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help.")
    boolean help;

    /** One run's figures; {@code sorted} holds the measured latencies in ms, ascending. */
    record Run(Variant variant, Duration interval, long rate, PacedProducer.Result produced, long[] sorted, long outputRecords,
            double firstOutputSeconds, List<WriteDelayCapture.Snapshot> writeDelays) {

        long percentile(double p) {
            // Nearest rank: the smallest latency at or above which lie no more than (1 - p) of the samples.
            return sorted.length == 0 ? -1 : sorted[(int) Math.max(0, Math.ceil(p * sorted.length) - 1)];
        }
    }

    /** Durations as the job's options spell them ({@code 10s}, {@code 500ms}, {@code 2min}): Flink's own parser. */
    static final class FlinkDuration implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return TimeUtils.parseDuration(value);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LatencyBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rates.stream().anyMatch(r -> r <= 0) || warmUp.compareTo(duration) >= 0 || duration.toSeconds() < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "need positive --rates and --warm-up shorter than --duration, got "
                    + rates + ", " + warmUp + ", " + duration);
        }
        List<Variant> order = Arrays.stream(variants.split(",")).map(Variant::byId).toList();
        if (order.contains(Variant.BYTE_PASS_THROUGH)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "byte-pass-through has no output sink of the job's; pick others");
        }
        Files.createDirectories(workDir);
        Instant started = Instant.now();
        List<Run> runs = new ArrayList<>();
        try (BenchKafka kafka = new BenchKafka(bootstrapServers)) {
            int n = 0;
            if (!jvmWarmUp.isZero()) {
                Run warm = run(kafka, order.get(0), checkpointIntervals.get(0), rates.get(0), jvmWarmUp, Duration.ZERO, "lat-warm-up-"
                        + Long.toString(System.currentTimeMillis(), 36));
                System.out.println("-- JVM warm-up run (not reported):" + System.lineSeparator() + line(warm));
            }
            for (Duration interval : checkpointIntervals) {
                for (long rate : rates) {
                    for (Variant variant : order) {
                        String runId = "lat-" + (++n) + "-" + Long.toString(System.currentTimeMillis(), 36);
                        Run run = run(kafka, variant, interval, rate, duration, warmUp, runId);
                        runs.add(run);
                        System.out.println(line(run));
                    }
                }
            }
        }
        String report = report(runs, started);
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report);
        }
        return 0;
    }

    private Run run(BenchKafka kafka, Variant variant, Duration interval, long rate, Duration length, Duration notMeasured, String runId)
            throws Exception {
        String input = "in-" + runId;
        String output = "out-" + runId;
        String deadLetters = "dlq-" + runId;
        kafka.create(Map.of(input, Workload.INPUT_PARTITIONS, output, JobRun.PARALLELISM, deadLetters, 1));
        Path checkpoints = workDir.resolve("checkpoints-" + runId);
        // Planned for every record of the run being unique in one day bucket: no filter grows in the run.
        long capacity = Math.max(1000, rate * length.toSeconds());
        DedupJobConfig config = DedupJobConfig.parse(
                "--bootstrap-servers", kafka.bootstrapServers,
                "--input-topic", input, "--output-topic", output, "--dlq-topic", deadLetters,
                "--starting-offsets", "earliest", "--group-id", "bench-" + runId, "--transactional-id-prefix", "bench-" + runId,
                "--capacity", Long.toString(capacity), "--fpp", "0.001",
                "--parallelism", Integer.toString(JobRun.PARALLELISM), "--state-backend", variant.stateBackend,
                "--checkpoint-interval", interval.toMillis() + "ms", "--checkpoint-dir", checkpoints.toUri().toString());
        Configuration flink = DedupJob.flinkConfiguration(config);
        flink.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, JobRun.MANAGED_MEMORY);
        // The local cluster's spill and RocksDB working files under the work directory, not /tmp.
        Path tmp = workDir.resolve("tmp-" + runId);
        flink.set(CoreOptions.TMP_DIRS, tmp.toString());
        WriteDelayCapture.install(flink);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(JobRun.PARALLELISM);
        DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), variant.stage, DedupJob.kafkaSinks(config));

        JobClient job = env.executeAsync("latency " + runId);
        try (VisibleLatency reader = new VisibleLatency(kafka.bootstrapServers, output)) {
            awaitRunning(job, Duration.ofMinutes(2));
            long startMs = System.currentTimeMillis();
            long measureFromMs = startMs + notMeasured.toMillis();
            PacedProducer.Result produced = PacedProducer.produce(kafka.bootstrapServers, input, rate, length, seed, measureFromMs);
            long endMs = System.currentTimeMillis();
            // Everything sent is visible after at most a checkpoint or two; a quiet spell of one interval
            // and 5 s more means the last transaction has committed (or the job has fallen far behind).
            boolean quiet = reader.awaitQuiet(interval.plusSeconds(5), interval.multipliedBy(3).plusSeconds(120));
            if (!quiet) {
                System.out.printf("  %s: output still arriving %s after the producer stopped; figures cover what arrived%n", runId,
                        interval.multipliedBy(3).plusSeconds(120));
            }
            List<WriteDelayCapture.Snapshot> writeDelays = WriteDelayCapture.snapshots();
            long[] sorted = reader.latenciesStampedBetween(measureFromMs, endMs);
            double firstOutput = reader.firstRecordMs() < 0 ? -1 : (reader.firstRecordMs() - startMs) / 1000.0;
            return new Run(variant, interval, rate, produced, sorted, reader.records(), firstOutput, writeDelays);
        } finally {
            cancel(job);
            WriteDelayCapture.clear();
            kafka.delete(input, output, deadLetters);
            FileUtils.deleteDirectory(checkpoints.toFile());
            FileUtils.deleteDirectory(tmp.toFile());
        }
    }

    private static void awaitRunning(JobClient job, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (job.getJobStatus().get(30, TimeUnit.SECONDS) != JobStatus.RUNNING) {
            if (System.nanoTime() > deadline || job.getJobStatus().get().isTerminalState()) {
                throw new IllegalStateException("Job " + job.getJobID() + " not running after " + limit + ": " + job.getJobStatus().get());
            }
            Thread.sleep(100);
        }
    }

    /** Cancels the job and waits for it to end; the local cluster it ran on shuts down with it. */
    private static void cancel(JobClient job) throws Exception {
        if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        try {
            job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            // A cancelled job's result is an exception: the one expected ending.
        }
    }

    private String line(Run r) {
        return String.format(Locale.ROOT, "  %-18s interval %5s rate %,7d/s: achieved %,9.0f/s (max %,d ms behind), p50 %,6d  p90 %,6d"
                        + "  p99 %,6d  max %,6d ms over %,d records; output %,d of %,d unique sent; first output after %.1f s",
                r.variant.id(), seconds(r.interval), r.rate, r.produced.achievedRate(), r.produced.maxBehindMs(), r.percentile(0.50),
                r.percentile(0.90), r.percentile(0.99), r.sorted.length == 0 ? -1 : r.sorted[r.sorted.length - 1], r.sorted.length,
                r.outputRecords, r.produced.unique(), r.firstOutputSeconds);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    private String report(List<Run> runs, Instant started) {
        StringBuilder r = new StringBuilder();
        r.append(String.format(Locale.ROOT, "End-to-end latency (Kafka timestamp = send time -> visible to a read_committed consumer), %s;"
                        + " %s per run, the first %s not measured; parallelism %d, %d input partitions, exactly-once%n", started,
                seconds(duration), seconds(warmUp), JobRun.PARALLELISM, Workload.INPUT_PARTITIONS));
        Machine machine = Machine.describe();
        r.append(String.format(Locale.ROOT, "%s, %d cores, %.1f GiB, Java %s; load average at the end: %s%n", machine.cpuModel(),
                machine.cores(), machine.memoryBytes() / (double) (1L << 30), machine.javaVersion(), loadAverage()));
        r.append("| Variant | Checkpoint interval | Rate asked /s | Rate achieved /s | Max behind schedule ms | p50 ms | p90 ms | p99 ms"
                + " | max ms | Measured records | Target p99 <= interval + 1 s |").append(System.lineSeparator());
        r.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|").append(System.lineSeparator());
        for (Run run : runs) {
            long p99 = run.percentile(0.99);
            r.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,.0f | %,d | %,d | %,d | %,d | %,d | %,d | %s |%n", run.variant.label,
                    seconds(run.interval), run.rate, run.produced.achievedRate(), run.produced.maxBehindMs(), run.percentile(0.50),
                    run.percentile(0.90), p99, run.sorted.length == 0 ? -1 : run.sorted[run.sorted.length - 1], run.sorted.length,
                    run.sorted.length == 0 ? "no data" : p99 <= run.interval.toMillis() + 1000 ? "met" : "not met"));
        }
        r.append(System.lineSeparator()).append("Completeness (output records read / unique impressions sent, whole run; measured records"
                + " / unique sent after the warm-up) and the job's own histogram output-write-delay-ms per sink subtask at the end"
                + " (its last samples: Kafka timestamp to the sink's write, without the wait for the commit):").append(System.lineSeparator());
        for (Run run : runs) {
            r.append(String.format(Locale.ROOT, "  %s, %s, %,d/s: output %,d / %,d; measured %,d / %,d; first output %.1f s after the"
                            + " producer started%n", run.variant.id(), seconds(run.interval), run.rate, run.outputRecords, run.produced.unique(),
                    run.sorted.length, run.produced.uniqueAfter(), run.firstOutputSeconds));
            for (WriteDelayCapture.Snapshot s : run.writeDelays) {
                r.append("    ").append(s).append(System.lineSeparator());
            }
        }
        return r.toString();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
