package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

/**
 * One bounded run of one variant over a workload: the job's own Kafka source, parsing and
 * exactly-once sinks around the variant's dedup stage, on a local Flink cluster of {@link
 * #PARALLELISM} slots, until the input's end offsets; then the output checked against the ground
 * truth and the last checkpoint measured.
 */
final class JobRun {

    static final int PARALLELISM = 2;
    /** How often the output's end offsets are sampled for the steady rate ({@link OutputProgress}). */
    private static final long SAMPLE_MILLIS = 250;
    /** RocksDB's block cache and write buffers (all RocksDB variants alike); the heap variants do not use it. */
    static final MemorySize MANAGED_MEMORY = MemorySize.ofMebiBytes(512);

    /** {@code checkpointBytes}: the state size of the last checkpoint, or -1 if it could not be read. */
    record Result(Variant variant, long records, double seconds, long checkpointBytes, VerificationReport report, double steadyRate) {
        double eventsPerSecond() {
            return records / seconds;
        }

        /** The seconds the run took beyond its records at the steady rate: deployment, start-up, final commit. */
        double fixedSeconds() {
            return seconds - records / steadyRate;
        }
    }

    private JobRun() {}

    static Result run(Variant variant, Workload workload, BenchKafka kafka, String runId, Path workDir) throws Exception {
        return run(variant, workload, kafka, runId, workDir, PARALLELISM);
    }

    /** {@link #run(Variant, Workload, BenchKafka, String, Path)} with {@code parallelism} slots (and output partitions). */
    static Result run(Variant variant, Workload workload, BenchKafka kafka, String runId, Path workDir, int parallelism) throws Exception {
        String output = "out-" + runId;
        String deadLetters = "dlq-" + runId;
        String stats = "stats-" + runId;
        kafka.create(variant.stats ? Map.of(output, parallelism, deadLetters, 1, stats, 1) : Map.of(output, parallelism, deadLetters, 1));
        Path checkpoints = workDir.resolve("checkpoints-" + runId);
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-servers", kafka.bootstrapServers,
                "--input-topic", workload.inputTopic, "--output-topic", output, "--dlq-topic", deadLetters,
                "--bounded", "--starting-offsets", "earliest", "--group-id", "bench-" + runId,
                "--transactional-id-prefix", "bench-" + runId,
                "--capacity", Long.toString(workload.uniquePerDay()), "--fpp", "0.001",
                "--parallelism", Integer.toString(parallelism), "--state-backend", variant.stateBackend,
                "--checkpoint-interval", "10s", "--checkpoint-dir", checkpoints.toUri().toString()));
        if (variant.stats) {
            args.addAll(List.of("--stats-topic", stats));
        }
        if (variant.format == ValueFormat.AVRO) {
            Path schema = workDir.resolve("impression.avsc");
            if (!Files.exists(schema)) {
                Files.writeString(schema, GeneratorSettings.avroSchemaText());
            }
            args.addAll(List.of("--input-format", "avro", "--avro-schema-file", schema.toString()));
        }
        DedupJobConfig config = DedupJobConfig.parse(args.toArray(new String[0]));
        Configuration flink = DedupJob.flinkConfiguration(config);
        flink.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MANAGED_MEMORY);
        // Only the last checkpoint is kept: its state size is read from its metadata (CheckpointCapture).
        flink.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(parallelism);
        if (variant.bytePassThrough()) {
            BytePassThrough.defineWorkflow(env, config);
        } else {
            DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), variant.stage, DedupJob.kafkaSinks(config));
        }

        JobExecutionResult result;
        OutputProgress progress = new OutputProgress();
        CheckpointCapture capture = new CheckpointCapture(checkpoints, workDir.resolve("metadata-" + runId));
        try (capture) {
            JobClient job = env.executeAsync("bench " + runId);
            CompletableFuture<JobExecutionResult> done = job.getJobExecutionResult();
            while (!done.isDone()) {
                progress.add(kafka.endOffsets(output));
                Thread.sleep(SAMPLE_MILLIS);
            }
            result = done.get();
            progress.add(kafka.endOffsets(output));
        }
        double seconds = result.getNetRuntime() / 1000.0;
        long checkpointBytes = capture.lastStateBytes().orElse(-1);

        VerificationReport report = Verifier.verifyTopics(workload.truth, kafka.bootstrapServers, output, deadLetters);

        kafka.delete(output, deadLetters);
        if (variant.stats) {
            kafka.delete(stats);
        }
        FileUtils.deleteDirectory(checkpoints.toFile());
        FileUtils.deleteDirectory(workDir.resolve("metadata-" + runId).toFile());
        Result run = new Result(variant, workload.records, seconds, checkpointBytes, report,
                progress.steadyInputRate(workload.records).orElse(Double.NaN));
        System.out.printf(Locale.ROOT, "  %-32s %,10.0f events/s (steady %,10.0f)  %6.1f s  checkpoint %,14d B %s  FP %.6f  FN %d  lost %d"
                        + "  twice %d%n",
                variant.label, run.eventsPerSecond(), run.steadyRate(), seconds, checkpointBytes,
                capture.keyedStateKinds, report.falsePositiveRate(), report.falseNegatives(), report.lost(), report.writtenTwice());
        return run;
    }
}
