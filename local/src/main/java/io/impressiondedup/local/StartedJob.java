package io.impressiondedup.local;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The dedup job of a local run, started on a MiniCluster in this JVM with the web UI: the production
 * workflow ({@link DedupJob#defineWorkflow}) between the run's Kafka topics, bounded, so it finishes
 * once it has read the generated input.
 *
 * @param config the job's options, as the job parsed them from the arguments a user would give
 * @param client the running job
 * @param webPort the port of the web UI and the REST API
 * @param running time since the job was submitted
 */
record StartedJob(DedupJobConfig config, JobClient client, int webPort, Stopwatch running) {

    /** How many ports past {@code --web-port} to try for a free one. */
    private static final int WEB_PORT_ATTEMPTS = 20;

    static StartedJob start(LocalRunSettings settings, String bootstrapServers, LocalTopics topics, RunConsole console)
            throws Exception {
        DedupJobConfig config = DedupJobConfig.parse(
                "--bootstrap-servers", bootstrapServers,
                "--input-topic", topics.input(), "--output-topic", topics.output(), "--dlq-topic", topics.deadLetters(),
                "--stats-topic", topics.stats(), "--bounded", "--starting-offsets", "earliest",
                "--capacity", Long.toString(settings.capacityPerDay()), "--fpp", Double.toString(settings.fpp()),
                "--allowed-lateness", Readable.duration(settings.allowedLateness()),
                "--parallelism", Integer.toString(settings.parallelism()), "--state-backend", settings.stateBackend().toString(),
                "--checkpoint-interval", "10s", "--checkpoint-dir", settings.workDir().resolve("checkpoints").toUri().toString());

        int webPort = LoopbackPorts.firstFree(settings.webPort(), WEB_PORT_ATTEMPTS);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironmentWithWebUI(
                flinkConfiguration(config, webPort, settings));
        env.setParallelism(settings.parallelism());
        DedupJob.defineWorkflow(env, config, DedupJob.kafkaSource(config), DedupJob.kafkaSinks(config));
        console.step("Running the dedup job on a local Flink cluster; web UI: http://localhost:%d", webPort);
        Stopwatch running = Stopwatch.start();
        return new StartedJob(config, env.executeAsync(DedupJob.jobName(config)), webPort, running);
    }

    /** The job's Flink configuration, with the web UI on {@code webPort} and the progress reported every second. */
    private static Configuration flinkConfiguration(DedupJobConfig config, int webPort, LocalRunSettings settings) {
        Configuration flink = DedupJob.flinkConfiguration(config);
        flink.set(RestOptions.PORT, webPort);
        flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        flink.set(WebOptions.TMP_DIR, settings.workDir().resolve("flink-web").toString()); // its upload directory, not /tmp's
        // The REST API caches metrics for 10 s by default: longer than half of a default run, whose
        // report would then show the gauges as they were before the first records.
        flink.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofSeconds(1));
        // Accumulators reach the client with the TaskManager's heartbeats (every 10 s by default): once a
        // second, the progress lines and the steady rate have a sample a second, not two in a short run.
        flink.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(1));
        return flink;
    }
}
