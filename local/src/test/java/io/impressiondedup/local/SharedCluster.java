package io.impressiondedup.local;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real standalone cluster (Kafka, a JobManager, two TaskManagers of two slots each) shared by the ITs that only
 * submit jobs to it: {@link ClusterIT}, the state tools' ITs and {@link SessionClusterMetaspaceIT} ({@code
 * @ExtendWith(SharedCluster.class)}, then {@link #cluster()}). The first of them starts it; it is stopped when the test run ends, so they pay for one start-up instead
 * of one each. An IT that kills the broker or breaks the cluster's storage ({@link FaultsIT}), or measures one
 * TaskManager's files and heap ({@link SoakIT}), keeps a cluster of its own.
 *
 * <p>The ITs meet on it in any order, so each one uses topics, consumer groups, transactional ids and files of its own
 * names, reads the logs only from where its job starts, and ends every job it starts: after each IT class, a job still
 * running is cancelled (so the next one gets the slots) and fails that class.
 *
 * <p>Stopping it deletes the pid files first, as after a failed run: {@code cluster.sh stop} must still find and end
 * every process ({@link StandaloneCluster#close()} fails naming any process left).
 */
final class SharedCluster implements BeforeAllCallback, AfterAllCallback {

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
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> left = new ArrayList<>();
        for (JsonNode job : cluster.restJson("/jobs/overview").path("jobs")) {
            if (!ENDED.contains(job.path("state").asText())) {
                left.add(job.path("jid").asText() + " (" + job.path("name").asText() + ", " + job.path("state").asText() + ")");
                cluster.cancel(job.path("jid").asText());
            }
        }
        if (!left.isEmpty()) {
            throw new AssertionError(context.getRequiredTestClass().getSimpleName() + " left jobs running on the shared cluster"
                    + " (cancelled now): " + left);
        }
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
