package io.impressiondedup.local;

import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;

/**
 * One command from a fresh clone to the whole pipeline on this machine: a real Kafka broker (KRaft,
 * in this JVM), generated impressions with their ground truth, the dedup job on a local Flink
 * MiniCluster with RocksDB and the web UI, and a report checked against the ground truth: the output and
 * dead-letter topics record by record, the reconciliation rows of {@code --stats-topic} per partition and
 * hour. Everything runs in this process and is shut down before it exits.
 *
 * <p>The steps, each a class of its own: the settings ({@link LocalRunOptions}, {@link LocalRunSettings}),
 * the input ({@link GeneratedInput}), the job ({@link StartedJob}), its progress ({@link ProgressPoller}),
 * the verification ({@link TopicVerification}), the report ({@link LocalRunReport}) and the verdict ({@link
 * Verdict}). Exit codes: 0 passed, 1 failed the verdict, 2 an invalid option, 3 the run itself failed.
 */
public final class LocalRun {

    static final int EXIT_INVALID_OPTION = 2;
    static final int EXIT_RUN_FAILED = 3;

    private final RunConsole console;

    private LocalRun(PrintStream out) {
        this.console = new RunConsole(out);
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (OptionSources.helpRequested(args)) {
                System.out.print(LocalRunOptions.help());
                return;
            }
            Configuration commandLine = LocalRunOptions.parse(args);
            Path workDir = Path.of(commandLine.get(LocalRunOptions.WORK_DIR)).toAbsolutePath();
            Files.createDirectories(workDir);
            System.setProperty("impression.dedup.log.file", workDir.resolve("local-run.log").toString());
            ((org.apache.logging.log4j.core.LoggerContext) org.apache.logging.log4j.LogManager.getContext(false)).reconfigure();
            exit = new LocalRun(System.out).run(commandLine, workDir);
        } catch (InvalidOptionException e) {
            System.err.println("local-run: " + e.getMessage());
            exit = EXIT_INVALID_OPTION;
        } catch (Exception e) {
            System.err.println("local-run failed: " + e);
            e.printStackTrace();
            exit = EXIT_RUN_FAILED;
        }
        if (exit != 0) {
            System.exit(exit);
        }
    }

    /** Runs the pipeline once; returns the {@link Verdict}'s exit code. */
    int run(Configuration commandLine, Path workDir) throws Exception {
        Stopwatch total = Stopwatch.start();
        LocalRunSettings settings = LocalRunSettings.of(commandLine, workDir);
        console.step("%s", settings.describe());
        LocalTopics topics = LocalTopics.DEFAULT;
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start()) {
            console.step("Kafka %s (KRaft, in this JVM) is up", kafka.bootstrapServers());
            kafka.createTopics(topics.partitions(settings.partitions()));

            GeneratedInput input = GeneratedInput.generate(settings, kafka.bootstrapServers(), topics.input(), console);
            StartedJob job;
            try (input) {
                job = StartedJob.start(settings, kafka.bootstrapServers(), topics, console);
                FirstWatermark.await(job, settings);
                input.release();
            }
            ProgressPoller.FinishedJob finished = new ProgressPoller(job, settings.count(), console).awaitFinish();
            TopicVerification verification = TopicVerification.run(input, kafka.bootstrapServers(), topics, console);

            String report = LocalRunReport.text(settings, topics, input, finished, verification, total.seconds());
            Files.writeString(workDir.resolve("report.txt"), report, StandardCharsets.UTF_8);
            Files.writeString(workDir.resolve("verification.json"), verification.records().toJson(settings.fpp()), StandardCharsets.UTF_8);
            console.println("");
            console.print(report);
            Verdict verdict = Verdict.of(verification, input, job);
            verdict.print(console);
            console.step("Shutting down Kafka; report in %s", workDir.resolve("report.txt"));
            return verdict.exitCode();
        }
    }
}
