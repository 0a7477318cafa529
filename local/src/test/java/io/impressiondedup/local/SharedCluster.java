package io.impressiondedup.local;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real standalone cluster (Kafka, a JobManager, two TaskManagers of two slots each) shared by the ITs that only
 * submit jobs to it: {@link ClusterIT}, the state tools' ITs and {@link SessionClusterMetaspaceIT} ({@code
 * @ExtendWith(SharedCluster.class)}, then {@link #cluster()}). The first of them starts it; it is stopped when the test run ends, so they pay for one start-up instead
 * of one each. An IT that kills the broker or breaks the cluster's storage ({@link FaultsIT}), or measures one
 * TaskManager's files and heap ({@link SoakIT}), keeps a cluster of its own.
 *
 * <p>The ITs meet on it in any order, so each one uses topics, consumer groups, transactional ids and files of its own
 * names, reads the logs only from where its job starts, and ends every job it starts. After each test, a job it started that
 * still runs is cancelled, so the next test gets the slots: a test that fails half-way fails alone instead of taking
 * the following tests down with slot time-outs; a test that passed but left a job running fails for it. After each IT
 * class, the same for jobs started outside a test ({@code @BeforeAll}). The ITs on this cluster run one after another
 * (junit-platform.properties), so the jobs that appear during a test are that test's.
 *
 * <p>Stopping it deletes the pid files first, as after a failed run: {@code cluster.sh stop} must still find and end
 * every process ({@link StandaloneCluster#close()} fails naming any process left).
 */
final class SharedCluster implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedCluster.class);
    private static final Set<String> ENDED = Set.of("CANCELED", "FAILED", "FINISHED");

    private static StandaloneCluster cluster;

    @Override
    public void beforeAll(ExtensionContext context) {
        // The root store closes what it holds after the last test of the run.
        cluster = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("cluster", key -> {
            try {
                return new StoppedWithoutPidFiles(StandaloneCluster.start("shared-cluster-it", 2));
            } catch (Exception e) {
                throw new IllegalStateException("Cannot start the shared cluster", e);
            }
        }, StoppedWithoutPidFiles.class).cluster;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Set<String> known = new HashSet<>();
        for (JsonNode job : cluster.restJson("/jobs/overview").path("jobs")) {
            known.add(job.path("jid").asText());
        }
        context.getStore(NAMESPACE).put("jobs before the test", known);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        @SuppressWarnings("unchecked")
        Set<String> known = context.getStore(NAMESPACE).get("jobs before the test", Set.class);
        List<String> left = cancelRunningJobsExcept(known);
        if (!left.isEmpty() && context.getExecutionException().isEmpty()) {
            throw new AssertionError(context.getDisplayName() + " left jobs running on the shared cluster (cancelled now): " + left);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> left = cancelRunningJobsExcept(Set.of());
        if (!left.isEmpty()) {
            throw new AssertionError(context.getRequiredTestClass().getSimpleName() + " left jobs running on the shared cluster"
                    + " (cancelled now): " + left);
        }
    }

    /** Cancels every job not in {@code known} that has not ended; returns them as "id (name, state)". */
    private static List<String> cancelRunningJobsExcept(Set<String> known) throws Exception {
        List<String> left = new ArrayList<>();
        for (JsonNode job : cluster.restJson("/jobs/overview").path("jobs")) {
            String id = job.path("jid").asText();
            if (!known.contains(id) && !ENDED.contains(job.path("state").asText())) {
                left.add(id + " (" + job.path("name").asText() + ", " + job.path("state").asText() + ")");
                cluster.cancel(id);
            }
        }
        return left;
    }

    static StandaloneCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("Annotate the test class with @ExtendWith(SharedCluster.class)");
        }
        return cluster;
    }

    /** What the root store holds and closes: the cluster, stopped after its pid files are deleted (class comment). */
    private record StoppedWithoutPidFiles(StandaloneCluster cluster) implements AutoCloseable {

        @Override
        public void close() throws Exception {
            Path pids = cluster.runDir().resolve("pids");
            FileUtils.deleteDirectory(pids.toFile());
            cluster.close();
        }
    }
}
