package io.impressiondedup.local;

/**
 * The second lane of the ITs: those that do not use the {@link SharedCluster} (a standalone cluster of their own, or a
 * MiniCluster in the test JVM on the {@link SharedKafka} broker). Annotated {@code @Execution(CONCURRENT)} and {@code
 * @ResourceLock(SecondLane.LANE)}, they run one at a time beside the shared cluster's ITs, which run one after another
 * ({@code junit-platform.properties}). The lanes are balanced by their length on the CI machine: the shared cluster's
 * lane is the longer one, so the MiniCluster ITs that mostly wait (an outage, a replay, a resume, a recovery) run here.
 * In four runs of 2026-12-06 the shared cluster's lane took 472-476 s of test time and this one 453-462 s, before
 * ExactlyOnceIT (10-14 s) moved here. An IT that computes most of its time does not belong here: ClusterIT in this lane
 * made the module slower, both lanes then competing for the 2 cores; so did a third lane with ClusterIT on a cluster of
 * its own (local 8:02 -> 9:04 min, every JVM taking more CPU). Nothing is shared between the lanes but the machine and
 * the test JVM's broker: each cluster has its own run directory, ports, broker and process marker, and each IT its own
 * topics.
 */
final class SecondLane {

    static final String LANE = "second-lane";

    private SecondLane() {}
}
