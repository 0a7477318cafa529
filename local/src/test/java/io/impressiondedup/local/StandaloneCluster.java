package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.regex.Pattern;
import org.apache.flink.util.FileUtils;

/**
 * A real Kafka broker and Flink standalone cluster, separate JVMs started by the scripts users run
 * ({@code deploy/local/cluster.sh}, {@code deploy/local/job.sh}) in a run directory of {@code
 * local/target} on free loopback ports: for the tests that kill, stop and inspect these processes as
 * an operator would (kill -9 a TaskManager, restart the broker on its port and data, read {@code
 * /proc/<pid>}). Every process it starts carries the run directory as a marker, and {@link #close()}
 * checks that none is left.
 */
final class StandaloneCluster implements AutoCloseable {

    private static final Pattern TASK_MANAGER_ID = Pattern.compile("taskmanager-(\\d+)");

    /**
     * How old a metric the REST API serves can be on these clusters: {@code metrics.fetcher.update-interval}, 10 s in
     * {@code deploy/conf/config.yaml} (Flink's default), set to this in the configuration each cluster starts from
     * ({@link #configuration}). Tests that read gauges through REST wait in multiples of it.
     */
    static final Duration METRICS_FETCH_INTERVAL = Duration.ofSeconds(1);

    /**
     * The JIT of a JVM that lives minutes ({@code cluster.sh}'s {@code CLUSTER_JVM_OPTS}, the tools' JVMs): the client
     * compiler only. A test cluster moves some 10^5 records; C2 would spend more CPU compiling than its code saves, on the
     * 2 cores the suite shares among the test JVM, Kafka, a JobManager and two TaskManagers.
     */
    static final String SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1";

    private final Path runDir;
    private final Map<String, String> env = new HashMap<>();
    private final String bootstrapServers;
    private final int restPort;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private StandaloneCluster(Path runDir, int[] ports) {
        this.runDir = runDir;
        this.restPort = ports[0];
        this.bootstrapServers = "127.0.0.1:" + ports[1];
        env.put("RUN_DIR", runDir.toString());
        env.put("REST_PORT", Integer.toString(ports[0]));
        env.put("KAFKA_PORT", Integer.toString(ports[1]));
        env.put("CONTROLLER_PORT", Integer.toString(ports[2]));
        env.put("JM_RPC_PORT", Integer.toString(ports[3]));
        env.put("JAR", Repository.jobJar().toString());
        env.put("FLINK_CONFIG", runDir.resolve("flink-config.yaml").toString());
        env.put("CLUSTER_JVM_OPTS", SHORT_LIVED_JVM);
    }

    /**
     * The configuration the cluster starts from ({@code cluster.sh}'s {@code FLINK_CONFIG}), written into the run
     * directory: {@code deploy/conf/config.yaml} as users start from, read at every start so that the two cannot
     * drift, with the REST metric fetcher's interval shortened to {@link #METRICS_FETCH_INTERVAL}.
     */
    private static void writeConfiguration(Path runDir) throws IOException {
        String deployed = Files.readString(Repository.root().resolve("deploy/conf/config.yaml"));
        Files.writeString(runDir.resolve("flink-config.yaml"), deployed + "\n# The tests' clusters: REST serves metrics at most this old.\n"
                + "metrics.fetcher.update-interval: " + METRICS_FETCH_INTERVAL.toMillis() + "\n");
    }

    /**
     * {@code cluster.sh}'s exit status when a port it was given is taken by another process: the ports are chosen free
     * ({@link LoopbackPorts}), and a process of the other lane or of this cluster (a JobManager's blob server, a
     * TaskManager's data port) can bind one of them before the JVM meant for it does.
     */
    static final int PORT_TAKEN = 75;
    /** Starts tried on fresh ports before a port taken fails the test. */
    private static final int START_ATTEMPTS = 3;

    /**
     * Kafka, a JobManager and {@code taskManagers} TaskManagers, in a fresh {@code local/target/<name>}; on other free
     * ports if one of those chosen was taken before it was bound ({@link #PORT_TAKEN}).
     */
    static StandaloneCluster start(String name, int taskManagers) throws Exception {
        assertThat(Repository.jobJar()).as("the shaded job jar (package the job module first)").isRegularFile();
        for (int attempt = 1; ; attempt++) {
            StandaloneCluster cluster = prepare(name, LoopbackPorts.free(4));
            try {
                cluster.startProcesses("start", Integer.toString(taskManagers));
                return cluster;
            } catch (ScriptFailed e) {
                cluster.close();
                if (e.status() != PORT_TAKEN || attempt == START_ATTEMPTS) {
                    throw e;
                }
                System.out.println("[" + name + "] a port was taken before it was bound; starting again on other ports");
            } catch (Throwable e) {
                cluster.close();
                throw e;
            }
        }
    }

    /**
     * A cluster on the given ports (REST, Kafka, Kafka's controller, JobManager RPC) in a fresh run directory {@code
     * local/target/<name>} that holds its configuration; nothing started.
     */
    static StandaloneCluster prepare(String name, int[] ports) throws IOException {
        Path runDir = Repository.buildDirectory().resolve(name);
        FileUtils.deleteDirectory(runDir.toFile());
        Files.createDirectories(runDir);
        writeConfiguration(runDir);
        return new StandaloneCluster(runDir, ports);
    }

    /**
     * Runs {@code cluster.sh} with a command that starts processes ({@code start}, {@code start-kafka}) on the classpaths
     * another run directory of this build resolved, else resolving them, alone: the two lanes' first clusters start
     * together, and one resolves while the other waits to copy.
     */
    void startProcesses(String... command) throws Exception {
        boolean resolving;
        synchronized (CLASSPATH_RESOLUTION) {
            resolving = !reuseResolvedClasspaths(runDir);
            if (resolving) {
                script("cluster.sh", command);
            }
        }
        if (!resolving) {
            script("cluster.sh", command);
        }
    }

    /** Held while a cluster starts that has to resolve the classpaths (see {@link #reuseResolvedClasspaths}). */
    private static final Object CLASSPATH_RESOLUTION = new Object();
    /** The classpath files {@code cluster.sh} writes into a run directory: Flink's and Kafka's. */
    private static final Pattern CLASSPATH_FILE = Pattern.compile("classpath-(flink|kafka)-\\d+\\.txt");

    /**
     * Copies into a fresh run directory the Flink and Kafka classpaths another run directory of this
     * build has resolved: {@code cluster.sh} resolves them with Maven once per run directory (some 15
     * seconds), in files named after a checksum of {@code deploy/cluster/pom.xml}, so a copy is what
     * it would resolve itself. Whether both were there to copy.
     */
    private static boolean reuseResolvedClasspaths(Path runDir) throws IOException {
        try (Stream<Path> siblings = Files.list(runDir.getParent())) {
            for (Path sibling : siblings.filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.list(sibling)) {
                    for (Path classpath : files.filter(f -> CLASSPATH_FILE.matcher(f.getFileName().toString()).matches()).toList()) {
                        if (Files.size(classpath) > 0 && !Files.exists(runDir.resolve(classpath.getFileName()))) {
                            Files.copy(classpath, runDir.resolve(classpath.getFileName()));
                        }
                    }
                } catch (NoSuchFileException removedMeanwhile) {
                    // a cluster starting afresh in that directory: cluster.sh resolves what is missing
                }
            }
        }
        try (Stream<Path> files = Files.list(runDir)) {
            return files.filter(f -> CLASSPATH_FILE.matcher(f.getFileName().toString()).matches()).count() == 2;
        }
    }

    Path runDir() {
        return runDir;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /** Submits the job through {@code job.sh} (the REST API); returns its id once all its tasks run. */
    String submit(int parallelism, List<String> jobArgs) throws Exception {
        return submit(parallelism, null, jobArgs);
    }

    /** {@link #submit(int, List)} from a savepoint, if not null. */
    String submit(int parallelism, String savepoint, List<String> jobArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("submit", "--parallelism", Integer.toString(parallelism)));
        if (savepoint != null) {
            args.addAll(List.of("--from-savepoint", savepoint));
        }
        args.add("--");
        args.addAll(jobArgs);
        return script("job.sh", args.toArray(new String[0])).trim();
    }

    /** Uploads the shaded jar through the REST API ({@code POST /jars/upload}); returns its jar id. */
    String uploadJar() throws Exception {
        Path jar = Repository.jobJar();
        String boundary = "cluster-it-" + System.nanoTime();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(restUri("/jars/upload"))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.concat(HttpRequest.BodyPublishers.ofByteArray(head),
                        HttpRequest.BodyPublishers.ofFile(jar), HttpRequest.BodyPublishers.ofByteArray(tail)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("uploading %s: %s", jar, response.body()).isEqualTo(200);
        return Path.of(json.readTree(response.body()).path("filename").asText()).getFileName().toString();
    }

    /** Cancels the job if it still runs, and waits until it is gone from the slots. */
    void cancel(String jobId) throws Exception {
        String state = restJson("/jobs/" + jobId).path("state").asText();
        if (!Set.of("CANCELED", "FAILED", "FINISHED").contains(state)) {
            rest("PATCH", "/jobs/" + jobId + "?mode=cancel", null);
        }
        waitUntil(Duration.ofSeconds(60), "job " + jobId + " to be cancelled",
                () -> Set.of("CANCELED", "FAILED", "FINISHED").contains(restJson("/jobs/" + jobId).path("state").asText()));
    }

    /** The resource ids ({@code taskmanager-N}) of the TaskManagers running any task of the job. */
    Set<String> taskManagersOf(String jobId) {
        Set<String> ids = new LinkedHashSet<>();
        for (JsonNode vertex : restJson("/jobs/" + jobId).path("vertices")) {
            for (JsonNode tm : restJson("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/taskmanagers").path("taskmanagers")) {
                ids.add(tm.path("taskmanager-id").asText());
            }
        }
        return ids;
    }

    /**
     * kill -9 of a TaskManager ({@code taskmanager-N}): what {@code cluster.sh kill-taskmanager N} does,
     * without a script's start-up, so that the kill lands within milliseconds of the decision.
     */
    void killTaskManager(String resourceId) throws Exception {
        assertThat(TASK_MANAGER_ID.matcher(resourceId).matches()).as("a TaskManager resource id: %s", resourceId).isTrue();
        ProcessHandle taskManager = ProcessHandle.of(pid(resourceId)).orElseThrow(() -> new AssertionError(resourceId + " does not run"));
        taskManager.destroyForcibly();
        Files.delete(runDir.resolve("pids/" + resourceId + ".pid"));
        taskManager.onExit().get(30, TimeUnit.SECONDS);
    }

    /** Starts one more TaskManager ({@code cluster.sh start-taskmanager}, a fresh id); returns once it registered. */
    void startTaskManager() throws Exception {
        script("cluster.sh", "start-taskmanager");
    }

    /** kill -9 of the broker; returns once the process is gone. Its data directory and port stay as they were. */
    void killKafka() throws Exception {
        ProcessHandle broker = ProcessHandle.of(pid("kafka")).orElseThrow(() -> new AssertionError("Kafka does not run"));
        broker.destroyForcibly();
        broker.onExit().get(30, TimeUnit.SECONDS);
    }

    /** Starts the broker again on the same port and data directory ({@code cluster.sh start-kafka}). */
    void startKafka() throws Exception {
        script("cluster.sh", "start-kafka");
    }

    /** The pid of a process the scripts started: {@code kafka}, {@code jobmanager}, {@code taskmanager-N}. */
    long pid(String process) throws IOException {
        return Long.parseLong(Files.readString(runDir.resolve("pids/" + process + ".pid")).trim());
    }

    Path jobManagerLog() {
        return runDir.resolve("logs/jobmanager.log");
    }

    /** How often the job went from RUNNING to RESTARTING, as its JobManager logged it. */
    int restarts(String jobId) throws IOException {
        int restarts = 0;
        for (String line : Files.readAllLines(jobManagerLog(), StandardCharsets.ISO_8859_1)) {
            if (line.contains("(" + jobId + ") switched from state RUNNING to RESTARTING")) {
                restarts++;
            }
        }
        return restarts;
    }

    HttpResponse<String> rest(String method, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(restUri(path))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI restUri(String path) {
        return URI.create("http://127.0.0.1:" + restPort + path);
    }

    /** GET on the REST API, which must answer 200. */
    JsonNode restJson(String path) {
        try {
            HttpResponse<String> response = rest("GET", path, null);
            assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
            return json.readTree(response.body());
        } catch (Exception e) {
            throw new IllegalStateException("GET " + path, e);
        }
    }

    /**
     * Operator metrics of a job over its subtasks, from REST ({@code /jobs/:id/vertices/:vid/subtasks/metrics}): for each of
     * {@code names} a vertex reports, "{@code name} sum" and "{@code name} max". The web monitor answers from what it fetched
     * last, at most {@link #METRICS_FETCH_INTERVAL} before: callers wait for the value they expect.
     */
    Map<String, Double> subtaskMetrics(String jobId, List<String> names) {
        Map<String, Double> values = new HashMap<>();
        for (JsonNode vertex : restJson("/jobs/" + jobId).path("vertices")) {
            String path = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
            List<String> ids = new ArrayList<>();
            for (JsonNode metric : restJson(path)) {
                String id = metric.path("id").asText();
                for (String name : names) {
                    if (id.endsWith("." + name)) {
                        ids.add(id);
                    }
                }
            }
            if (ids.isEmpty()) {
                continue;
            }
            for (JsonNode metric : restJson(path + "?get=" + String.join(",", ids).replace(" ", "%20") + "&agg=sum,max")) {
                String name = metric.path("id").asText().substring(metric.path("id").asText().lastIndexOf('.') + 1);
                values.put(name + " sum", metric.path("sum").asDouble());
                values.put(name + " max", metric.path("max").asDouble());
            }
        }
        return values;
    }

    /**
     * What the Prometheus reporters of every Flink JVM on this machine serve now (ports 9249-9260, {@code
     * deploy/conf/config.yaml}), concatenated: live values, not the REST API's cache. The ports are shared with any other
     * cluster on the machine (a parallel build's), so callers select the series of their job by its {@code job_id} label.
     */
    String scrapePrometheus() {
        StringBuilder all = new StringBuilder();
        for (int port = 9249; port <= 9260; port++) {
            try {
                all.append(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
            } catch (Exception notThere) {
                // no reporter on this port
            }
        }
        return all.toString();
    }

    /** Runs a {@code deploy/local} script against this cluster; returns its standard output, fails on a non-zero exit. */
    String script(String name, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Repository.root().resolve("deploy/local/" + name).toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Repository.root().toFile());
        builder.environment().putAll(env);
        Path err = Files.createTempFile(runDir, "script", ".err");
        builder.redirectError(err.toFile());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(600, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(name + " " + String.join(" ", args) + " did not finish in 600 s");
        }
        String stderr = Files.readString(err);
        Files.delete(err);
        System.out.print(stderr);
        if (process.exitValue() != 0) {
            throw new ScriptFailed(name + " " + String.join(" ", args) + " exited " + process.exitValue() + ":\n" + stderr, process.exitValue());
        }
        return out;
    }

    /** A script that exited with a non-zero status. */
    static final class ScriptFailed extends AssertionError {

        private final int status;

        ScriptFailed(String message, int status) {
            super(message);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    /** Stops every process of the cluster; fails if any is left. */
    @Override
    public void close() throws Exception {
        script("cluster.sh", "stop");
        Process pgrep = new ProcessBuilder("pgrep", "-f", "impression.dedup.run=" + runDir).start();
        String left = new String(pgrep.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        pgrep.waitFor();
        assertThat(left).as("processes of %s left behind", runDir).isEmpty();
    }

    static void waitUntil(Duration timeout, String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(200);
        }
    }
}
