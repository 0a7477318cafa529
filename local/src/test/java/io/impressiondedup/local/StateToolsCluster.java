package io.impressiondedup.local;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real standalone cluster (Kafka, a JobManager, one TaskManager of two slots) shared by the state
 * tools' ITs ({@code @ExtendWith(StateToolsCluster.class)}, then {@link #cluster()}): started by the
 * first of them, stopped (checking that no process is left) when the test run ends, so the three pay
 * for one start instead of three. Each IT uses topics, groups and files of its own names, and ends
 * every job it starts.
 */
final class StateToolsCluster implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(StateToolsCluster.class);

    private static StandaloneCluster cluster;

    @Override
    public void beforeAll(ExtensionContext context) {
        // The root store closes what it holds (StandaloneCluster is AutoCloseable) after the last test of the run.
        cluster = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("cluster", key -> {
            try {
                return StandaloneCluster.start("state-tools-it", 1);
            } catch (Exception e) {
                throw new IllegalStateException("Cannot start the state tools' cluster", e);
            }
        }, StandaloneCluster.class);
    }

    static StandaloneCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("Annotate the test class with @ExtendWith(StateToolsCluster.class)");
        }
        return cluster;
    }
}
