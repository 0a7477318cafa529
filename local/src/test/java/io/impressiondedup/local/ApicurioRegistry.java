package io.impressiondedup.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Apicurio Registry (3.x, in-memory storage) in a JVM of its own, started and stopped by a test: the application
 * Maven Central serves ({@code io.apicurio:apicurio-registry-app:<version>:tar.gz:all}, unpacked by local/pom.xml into
 * the directory of the system property {@code apicurio.registry.home}). It needs Java 21 or later: the JDK of the system
 * property {@code apicurio.registry.java} (a {@code java} executable), else the newest JDK of at least 21 under
 * {@code /usr/lib/jvm}; without one the test fails saying so. Every start is an empty registry.
 *
 * <p>Both of its APIs serve the job: the Confluent-compatible one ({@link #confluentApiUrl}, whose ids are content ids)
 * and its own ({@link #apicurioApiUrl}, v3: global and content ids). {@link #pause} and {@link #resume} stop and continue
 * the process (SIGSTOP, SIGCONT): a registry that accepts connections and answers nothing, as a hung or overloaded one.
 */
final class ApicurioRegistry implements AutoCloseable {

    private static final Duration READY_DEADLINE = Duration.ofSeconds(120);

    private static ApicurioRegistry shared;

    private final Process process;
    private final int httpPort;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    private ApicurioRegistry(Process process, int httpPort, Path log) {
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
    }

    /**
     * One registry for all the tests of a JVM (its start costs seconds of CPU, on the machine the other lane shares), as
     * {@link SharedKafka} is one broker; each test registers under subjects and artifacts of its own. Stopped when the JVM
     * ends. A test that pauses it ({@link #pause}) resumes it before it ends.
     */
    static synchronized ApicurioRegistry shared() throws Exception {
        if (shared == null) {
            shared = start(Path.of("target", "apicurio-registry.log"));
            ApicurioRegistry started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // JVM exit
                }
            }));
        }
        return shared;
    }

    /** Starts tried on fresh ports before a port taken fails the test (see {@link #start}). */
    private static final int START_ATTEMPTS = 3;

    /**
     * Starts a registry, logging to {@code log}, and waits until it is ready; on other free ports if one of those chosen
     * was bound by another process before the registry bound it (Quarkus logs "Port N seems to be in use by another
     * process").
     */
    static ApicurioRegistry start(Path log) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(log);
            } catch (PortTaken e) {
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private static ApicurioRegistry startOnce(Path log) throws Exception {
        Path home = Path.of(System.getProperty("apicurio.registry.home", "target/apicurio-registry-3.3.3"));
        Path runner = home.resolve("quarkus-run.jar");
        if (!Files.isRegularFile(runner)) {
            throw new IllegalStateException("No Apicurio Registry at " + home + " (quarkus-run.jar): local/pom.xml unpacks it before the ITs");
        }
        int httpPort = freePort();
        int managementPort = freePort();
        // Its temporary files (Vert.x's file cache among them) under target/, not in the machine's /tmp.
        Path tmp = Files.createDirectories(home.toAbsolutePath().resolve("tmp"));
        List<String> command = new ArrayList<>(List.of(java21().toString(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp,
                "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + httpPort,
                "-Dquarkus.management.host=127.0.0.1", "-Dquarkus.management.port=" + managementPort,
                "-jar", runner.toString()));
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        ApicurioRegistry registry = new ApicurioRegistry(process, httpPort, log);
        try {
            registry.awaitReady(URI.create("http://127.0.0.1:" + managementPort + "/health/ready"));
        } catch (Exception | AssertionError e) {
            registry.close();
            throw e;
        }
        return registry;
    }

    /** The registry's http://127.0.0.1:port, below which both APIs are. */
    String root() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** The Confluent-compatible API's base URL, for {@code --avro-schema-registry-api confluent}. */
    String confluentApiUrl() {
        return "http://127.0.0.1:" + httpPort + "/apis/ccompat/v7";
    }

    /** Apicurio's own API (v3), for {@code --avro-schema-registry-api apicurio}. */
    String apicurioApiUrl() {
        return "http://127.0.0.1:" + httpPort + "/apis/registry/v3";
    }

    /** Registers {@code schema} under {@code subject} through the Confluent-compatible API: its id there (a content id). */
    int registerThroughConfluentApi(String subject, String schema) throws Exception {
        ObjectNode body = json.createObjectNode().put("schema", schema);
        JsonNode answer = post(confluentApiUrl() + "/subjects/" + subject + "/versions", "application/vnd.schemaregistry.v1+json", body);
        return answer.path("id").asInt();
    }

    /** The ids of a version registered through Apicurio's own API. */
    record Version(long globalId, long contentId) {}

    /**
     * Registers {@code schema} as a new version of the Avro artifact {@code artifactId} of the default group through
     * Apicurio's own API (creating the artifact with its first version).
     */
    Version registerThroughApicurioApi(String artifactId, String schema, boolean first) throws Exception {
        ObjectNode content = json.createObjectNode().put("content", schema).put("contentType", "application/json");
        JsonNode answer;
        if (first) {
            ObjectNode body = json.createObjectNode().put("artifactId", artifactId).put("artifactType", "AVRO");
            body.putObject("firstVersion").set("content", content);
            answer = post(apicurioApiUrl() + "/groups/default/artifacts", "application/json", body).path("version");
        } else {
            ObjectNode body = json.createObjectNode();
            body.set("content", content);
            answer = post(apicurioApiUrl() + "/groups/default/artifacts/" + artifactId + "/versions", "application/json", body);
        }
        return new Version(answer.path("globalId").asLong(), answer.path("contentId").asLong());
    }

    /** Stops the process where it is: connections are accepted (by the kernel) and nothing is answered. */
    void pause() throws Exception {
        signal("STOP");
    }

    /** Continues a paused process. */
    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    private JsonNode post(String url, String contentType, JsonNode body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("POST " + url + " answered " + response.statusCode() + ": " + response.body());
        }
        return json.readTree(response.body());
    }

    private void awaitReady(URI health) throws Exception {
        long deadline = System.nanoTime() + READY_DEADLINE.toNanos();
        while (true) {
            if (!process.isAlive()) {
                String tail = tail();
                String message = "Apicurio Registry exited with " + process.exitValue() + " before it was ready; its log: " + log + "\n" + tail;
                boolean portTaken = tail.contains("seems to be in use by another process") || tail.contains("Address already in use");
                throw portTaken ? new PortTaken(message) : new IllegalStateException(message);
            }
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Apicurio Registry not ready after " + READY_DEADLINE + "; its log: " + log + "\n" + tail());
            }
            Thread.sleep(200);
        }
    }

    /** The registry could not bind a port it was given: another process took it after it was found free. */
    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    private String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /** A {@code java} of at least version 21 (class comment). */
    static Path java21() throws IOException {
        String configured = System.getProperty("apicurio.registry.java");
        if (configured != null) {
            return Path.of(configured);
        }
        Optional<Path> found;
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            found = jdks.filter(jdk -> Files.isExecutable(jdk.resolve("bin/java")) && featureVersion(jdk) >= 21)
                    .max((a, b) -> Integer.compare(featureVersion(a), featureVersion(b))).map(jdk -> jdk.resolve("bin/java"));
        } catch (IOException e) {
            found = Optional.empty();
        }
        return found.orElseThrow(() -> new IllegalStateException("Apicurio Registry needs Java 21 or later: none under /usr/lib/jvm;"
                + " give one with -Dapicurio.registry.java=/path/to/bin/java"));
    }

    /** A JDK's feature version from its {@code release} file (JAVA_VERSION="25.0.1"), or 0. */
    private static int featureVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(version.split("[.+-]")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            signal("CONT"); // a paused process cannot act on SIGTERM
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
