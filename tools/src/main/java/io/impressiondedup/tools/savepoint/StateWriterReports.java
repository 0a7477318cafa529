package io.impressiondedup.tools.savepoint;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a failed state writer reaches the tool that runs it: each {@link WatchedStateWriter} subtask reports here, under
 * the id of its job run, the first thing that ended it without its state; the tool waits on {@link Watch#failure()}
 * beside the job's result ({@code ToolEnvironment#execute}).
 *
 * <p><b>Why a channel beside Flink's own.</b> The State Processor API runs every state-writing function (a {@code
 * KeyedStateBootstrapFunction}) on a thread of its own that its task feeds through a queue of 16 elements
 * ({@code BootstrapStreamTaskRunner}, Flink 2.3), and that thread drops the exception that ends it: the task is not
 * failed, nothing is logged. The task then either blocks forever on the full queue (more than 16 elements still to
 * write: the tool hangs) or finishes without that subtask's state (the tool writes an incomplete savepoint and
 * reports success). Only the writer itself sees the failure, so it reports it here, and the tool cancels the job and
 * fails with it.
 *
 * <p>The channel is this JVM's: the tools run their Flink in their own JVM ({@code ToolEnvironment}), so the writers'
 * subtasks and the tool that waits share it. A report for a run nobody watches (a job not run by {@code
 * ToolEnvironment#execute}) is dropped; the writer still throws.
 */
public final class StateWriterReports {

    private static final Map<String, Watch> WATCHED = new ConcurrentHashMap<>();

    private StateWriterReports() {}

    /** The reports of run {@code run}, until closed. */
    public static Watch watch(String run) {
        Watch watch = new Watch(run);
        if (WATCHED.putIfAbsent(run, watch) != null) {
            throw new IllegalStateException("Run " + run + " is watched already");
        }
        return watch;
    }

    /** Subtask {@code subtask} (0-based) of {@code subtasks} of run {@code run}'s writer threw {@code cause}. */
    static void failed(String run, int subtask, int subtasks, Throwable cause) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null) {
            watch.failure.complete(new StateWriterFailure(subtask, subtasks, cause)); // the first report wins
        }
    }

    /** Subtask {@code subtask} of run {@code run}'s writer has taken its snapshot: its state goes into the savepoint. */
    static void snapshotTaken(String run, int subtask) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null) {
            watch.snapshotsTaken.add(subtask);
        }
    }

    /**
     * A copy of subtask {@code subtask}'s writer was closed; if no copy of it has taken its snapshot, the subtask ended
     * without its state. (Flink makes two copies of a writer per subtask: the one its bootstrap task runs, and one in the
     * task's operator chain that is only opened and closed, after the first has taken its snapshot. So whether the
     * snapshot was taken is counted per subtask, not per copy.)
     */
    static void closed(String run, int subtask, int subtasks) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null && !watch.snapshotsTaken.contains(subtask)) {
            failed(run, subtask, subtasks, null);
        }
    }

    /** The reports of one run: {@link #failure()} completes with the first writer subtask that failed. */
    public static final class Watch implements AutoCloseable {

        private final String run;
        private final CompletableFuture<StateWriterFailure> failure = new CompletableFuture<>();
        private final Set<Integer> snapshotsTaken = ConcurrentHashMap.newKeySet();

        private Watch(String run) {
            this.run = run;
        }

        public CompletableFuture<StateWriterFailure> failure() {
            return failure;
        }

        @Override
        public void close() {
            WATCHED.remove(run, this);
        }
    }
}
