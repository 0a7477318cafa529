package io.impressiondedup.local;

/**
 * The lane of the ITs that start a standalone cluster of their own ({@link StandaloneCluster#start}) rather than use
 * the {@link SharedCluster}: annotated {@code @Execution(CONCURRENT)} and {@code @ResourceLock(OwnCluster.LANE)}, they
 * run one at a time, beside the shared cluster's ITs ({@code junit-platform.properties}). Such an IT mostly waits (a
 * steady rate, a broker restart, heartbeats, backoff), so two lanes use the 2 cores of the CI machine that one lane
 * leaves idle: on a clean clone the local module's ITs took 9:32 in two lanes against 12:16-13:33 in one. An IT that
 * mostly computes does not belong here: ClusterIT in this lane made the module slower (10:44), both lanes then
 * competing for the cores. Nothing is shared between the lanes but the machine: each cluster has its own run
 * directory, ports, broker and process marker. SchemaRegistryIT runs here too: its registry is a process of its own,
 * and half of its time is the registry's 30 s outage.
 */
final class OwnCluster {

    static final String LANE = "own-cluster";

    private OwnCluster() {}
}
