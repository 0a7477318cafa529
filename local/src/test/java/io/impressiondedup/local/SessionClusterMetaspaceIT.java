package io.impressiondedup.local;

import static io.impressiondedup.local.StandaloneCluster.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What users do on a session cluster every day: submit the job, cancel it, submit it again. Each job's classes live in
 * a user-code class loader of their own on every TaskManager the job runs on, which Flink drops when the job's last
 * task there ends; anything the job leaves running or registered past its end (a Kafka client and its thread, an
 * MBean, a thread-local, a cache keyed by its classes) keeps that loader, and every class of the job, in the
 * TaskManager's metaspace, until {@code OutOfMemoryError: Metaspace}. Here the job jar, uploaded once to the shared
 * standalone cluster ({@link SharedCluster}) and run over REST, reads a small topic, completes a checkpoint and is
 * cancelled, {@value #CYCLES} times.
 *
 * <p>After each cancellation the TaskManagers get forced GCs ({@code jcmd <pid> GC.run}, with the finalizers the first
 * one found run before the second: lz4-java's native hashes are finalizable) until they hold no more user-code class
 * loaders than after the job before, or {@link #RELEASE_DEADLINE} passes; then their metaspace is read. The first
 * cycle warms the TaskManagers up and waits for nothing: the first job a TaskManager runs also loads classes of Flink's
 * own that stay, and its loader can stay a minute or more after it ends, held by JIT-compiled code still on a thread's
 * stack (no object path from a GC root leads to it in a heap dump then), until the JIT lets go. From the second cycle on,
 * the metaspace must not grow by {@link #GROWTH_BOUND_KIB}, half of what one job's classes take, over the smallest
 * reading since: one job left behind fails it. After the last cycle no more user-code class loaders may be left than
 * before the first.
 */
@ExtendWith(SharedCluster.class)
class SessionClusterMetaspaceIT {

    /**
     * Submissions and cancellations: the first warms the TaskManagers up, and a job left behind raises the metaspace by
     * {@link #ONE_JOB_KIB}, twice the bound, at the next cycle: from cycle 3 on, each of the last three fails on it.
     * (A hundred cycles on a 256m metaspace: bench/run-session-cycles.sh.)
     */
    static final int CYCLES = 5;
    /**
     * The metaspace one job's classes take on the TaskManager it runs on: 14.5 to 15.1 MiB, measured as the growth per
     * job while each job's class loader stayed behind (the exactly-once writer's admin client left open): 14,997 and
     * 14,950 KiB on deploy/local's cluster at parallelism 2, 15,185 and 14,870 KiB in this test.
     */
    static final long ONE_JOB_KIB = 14 * 1024;
    /**
     * How much the TaskManagers' metaspace may grow from the second cycle to the last: half of one job. Without a job
     * left behind it grows by the metadata the JIT adds to classes already loaded (method counters and profiles), 0.2
     * to 0.7 MB per job on a fresh TaskManager and less once it is warm.
     */
    static final long GROWTH_BOUND_KIB = ONE_JOB_KIB / 2;
    static final Duration RELEASE_DEADLINE = Duration.ofSeconds(90);

    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    private static final Pattern METASPACE_USED = Pattern.compile("Both:\\s+([0-9.]+) (bytes|KB|MB|GB) used");
    private static final String USER_CODE_LOADER = "org.apache.flink.util.ChildFirstClassLoader";

    private final StandaloneCluster cluster = SharedCluster.cluster();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void repeatedSubmissionsAndCancellationsLeaveNoClassLoaderAndNoMetaspaceBehind() throws Exception {
        long started = System.nanoTime();
        String bootstrap = cluster.bootstrapServers();
        KafkaTopics.create(bootstrap, Map.of("metaspace-impressions", 1, "metaspace-deduplicated", 1, "metaspace-dead-letters", 1),
                Map.of());
        try (KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, "metaspace-impressions", Map.of())) {
            ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(200).seed(31).build());
            while (generator.hasNext()) {
                input.write(generator.next());
            }
            input.flush();
        }
        // The jar uploaded once and run over REST each cycle, as ClusterIT's detached run does: each run is a job of its own
        // with a class loader of its own on the JobManager (main) and the TaskManagers (the tasks).
        String jar = cluster.uploadJar();
        TaskManagers before = TaskManagers.collect(cluster.runDir(), Integer.MAX_VALUE);
        List<TaskManagers> after = new ArrayList<>();
        String job = null;
        for (int cycle = 1; cycle <= CYCLES; cycle++) {
            long submitted = System.nanoTime();
            long logFrom = Files.size(cluster.jobManagerLog());
            job = run(jar, cycle);
            String running = job;
            waitUntil(Duration.ofSeconds(120), "job " + job + " to complete a checkpoint", () -> checkpointCompleted(running, logFrom));
            long checkpointed = System.nanoTime();
            HttpResponse<String> cancel = cluster.rest("PATCH", "/jobs/" + job + "?mode=cancel", null);
            assertThat(cancel.statusCode()).as("cancelling %s: %s", job, cancel.body()).isEqualTo(202);
            // No more loaders than after the previous job: this job's is gone (its tasks ended first), while the one of a
            // TaskManager's first job may still be on its way out (class comment). The first cycle waits for nothing.
            int loaders = cycle == 1 ? Integer.MAX_VALUE : after.get(cycle - 2).userCodeLoaders();
            TaskManagers now = TaskManagers.collect(cluster.runDir(), loaders);
            after.add(now);
            System.out.printf("cycle %d (job %s): %s; seconds to a checkpoint %.1f, to the loader's release %.1f%n", cycle, job, now,
                    (checkpointed - submitted) / 1e9, (System.nanoTime() - checkpointed) / 1e9);
            if (cycle > 2) {
                TaskManagers smallest = after.subList(1, cycle - 1).stream().min(Comparator.comparingLong(TaskManagers::metaspaceKib))
                        .orElseThrow();
                long growth = now.metaspaceKib() - smallest.metaspaceKib();
                assertThat(growth).as("growth of the TaskManagers' metaspace (KiB) to cycle %d (%s) from the smallest since cycle 2"
                        + " (%s); before the first job: %s. Over %d KiB, half of one job's classes (%d KiB): a job's class loader"
                        + " stays on a TaskManager after the job ends", cycle, now, smallest, before, GROWTH_BOUND_KIB, ONE_JOB_KIB)
                        .isLessThan(GROWTH_BOUND_KIB);
            }
        }
        cluster.cancel(job);
        TaskManagers last = TaskManagers.collect(cluster.runDir(), before.userCodeLoaders());
        assertThat(last.userCodeLoaders()).as("user-code class loaders on the TaskManagers after the last job (%s) and before the"
                + " first (%s)", last, before).isLessThanOrEqualTo(before.userCodeLoaders());
        System.out.printf("%d submissions and cancellations took %.0f s; metaspace after cycle 2: %d KiB, after cycle %d: %d KiB%n",
                CYCLES, (System.nanoTime() - started) / 1e9, after.get(1).metaspaceKib(), CYCLES, after.get(CYCLES - 1).metaspaceKib());
    }

    /**
     * Whether the JobManager logged a completed checkpoint of the job since {@code logFrom} (bytes into its log): read from
     * the log, as the REST API answers from what it fetched up to 3 s before.
     */
    private boolean checkpointCompleted(String job, long logFrom) {
        try (SeekableByteChannel log = Files.newByteChannel(cluster.jobManagerLog())) {
            ByteBuffer since = ByteBuffer.allocate((int) Math.max(0, log.size() - logFrom));
            log.position(logFrom);
            while (since.hasRemaining() && log.read(since) > 0) {
                // reads to the end as of now
            }
            return Pattern.compile("Completed checkpoint \\d+ for job " + job).matcher(
                    new String(since.array(), 0, since.position(), StandardCharsets.ISO_8859_1)).find();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs the uploaded jar at parallelism 1 ({@code POST /jars/:id/run}); returns the job's id. Each cycle's job has a
     * consumer group and transactional ids of its own: on the ids of the cycle before, a new job would first wait for the
     * brokers to abort the transactions the cancelled job left open (seconds each), which this test has no need to repeat.
     */
    private String run(String jar, int cycle) throws Exception {
        List<String> jobArgs = List.of("--bootstrap-servers", cluster.bootstrapServers(), "--input-topic", "metaspace-impressions",
                "--output-topic", "metaspace-deduplicated", "--dlq-topic", "metaspace-dead-letters", "--capacity", "10000",
                "--starting-offsets", "earliest", "--checkpoint-interval", "1s", "--group-id", "metaspace-it-" + cycle,
                "--transactional-id-prefix", "metaspace-it-" + cycle);
        HttpResponse<String> response = cluster.rest("POST", "/jars/" + jar + "/run", json.writeValueAsString(
                Map.of("entryClass", DedupJob.class.getName(), "programArgsList", jobArgs, "parallelism", 1)));
        assertThat(response.statusCode()).as("POST /jars/%s/run answered %s", jar, response.body()).isEqualTo(200);
        return json.readTree(response.body()).path("jobid").asText();
    }

    /**
     * The TaskManagers of the cluster after forced GCs: their user-code class loaders and metaspace in use, summed, and
     * their Kafka client threads.
     */
    record TaskManagers(int userCodeLoaders, long metaspaceKib, List<String> kafkaThreads, int gcs) {

        /**
         * Forces GCs on every TaskManager until they hold at most {@code loaders} user-code class loaders together, or
         * {@link #RELEASE_DEADLINE} passes; then reads them.
         */
        static TaskManagers collect(Path runDir, int loaders) throws Exception {
            long deadline = System.nanoTime() + RELEASE_DEADLINE.toNanos();
            int gcs = 0;
            while (true) {
                int userCodeLoaders = 0;
                long metaspaceKib = 0;
                List<String> kafkaThreads = new ArrayList<>();
                List<CompletableFuture<String>> attaches = new ArrayList<>();
                for (long pid : taskManagerPids(runDir)) {
                    // One attach per TaskManager, all at once: a GC, the finalizers it found pending (lz4-java's native
                    // hashes are finalizable), a GC that collects what they held, then what is left.
                    attaches.add(CompletableFuture.supplyAsync(() -> jcmd(pid, runDir, "GC.run", "GC.run_finalization", "GC.run",
                            "VM.classloader_stats", "VM.metaspace basic", "Thread.print")));
                }
                for (CompletableFuture<String> attach : attaches) {
                    String out = attach.join();
                    userCodeLoaders += count(out, USER_CODE_LOADER);
                    metaspaceKib += metaspaceUsedKib(out);
                    for (String line : out.split("\n")) {
                        if (line.startsWith("\"kafka-")) {
                            kafkaThreads.add(line.substring(0, line.indexOf('"', 1) + 1));
                        }
                    }
                }
                gcs++;
                if (userCodeLoaders <= loaders || System.nanoTime() > deadline) {
                    return new TaskManagers(userCodeLoaders, metaspaceKib, kafkaThreads, gcs);
                }
                Thread.sleep(500);
            }
        }

        @Override
        public String toString() {
            return userCodeLoaders + " user-code class loaders, metaspace used " + metaspaceKib + " KiB (after " + gcs
                    + " forced GCs), Kafka client threads " + kafkaThreads;
        }
    }

    private static List<Long> taskManagerPids(Path runDir) throws IOException {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> files = Files.list(runDir.resolve("pids"))) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("taskmanager-\\d+\\.pid")).toList()) {
                long pid = Long.parseLong(Files.readString(file).trim());
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    pids.add(pid);
                }
            }
        }
        assertThat(pids).as("running TaskManagers of %s", runDir).isNotEmpty();
        return pids;
    }

    /** Runs {@code commands} in one attach to the JVM {@code pid} ({@code jcmd <pid> -f <file>}); returns their output. */
    private static String jcmd(long pid, Path runDir, String... commands) {
        List<String> line = List.of();
        try {
            Path file = Files.writeString(runDir.resolve("jcmd-" + pid + ".txt"), String.join("\n", commands) + "\n");
            line = List.of(JCMD.toString(), Long.toString(pid), "-f", file.toString());
            Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", line) + " (" + String.join(", ", commands) + ") failed:\n" + out);
            }
            return out;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(String.join(" ", line) + " (" + String.join(", ", commands) + ")", e);
        }
    }

    private static int count(String text, String word) {
        int count = 0;
        for (int at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length())) {
            count++;
        }
        return count;
    }

    /** The metaspace in use, from {@code jcmd <pid> VM.metaspace basic} ("Both: 61.93 MB used."), in KiB. */
    static long metaspaceUsedKib(String basic) {
        Matcher used = METASPACE_USED.matcher(basic);
        assertThat(used.find()).as("metaspace in use in:\n%s", basic).isTrue();
        double value = Double.parseDouble(used.group(1));
        return Math.round(switch (used.group(2)) {
            case "bytes" -> value / 1024;
            case "KB" -> value;
            case "MB" -> value * 1024;
            default -> value * 1024 * 1024;
        });
    }
}
