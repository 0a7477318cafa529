package io.impressiondedup.tools.savepoint;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * How the failure of a tool's state reader or writer, and how much its writers have written, reach the tool that runs
 * it: each {@link WatchedStateReader} and {@link WatchedStateWriter} subtask reports here, under the id of its job run,
 * the first thing that failed it (and each writer what it wrote, {@link Watch#written()}); the tool waits on {@link
 * Watch#failure()} beside the job ({@code ToolEnvironment#execute}, {@code #collect}) and fails with that report rather
 * than with what Flink says.
 *
 * <p><b>Why a channel beside Flink's own.</b>
 * <ol>
 *   <li>A writer's failure never reaches Flink. The State Processor API runs every state-writing function (a {@code
 *       KeyedStateBootstrapFunction}) on a thread of its own that its task feeds through a queue of 16 elements
 *       ({@code BootstrapStreamTaskRunner}, Flink 2.3), and that thread drops the exception that ends it: the task is
 *       not failed, nothing is logged. The task then either blocks forever on the full queue (more than 16 elements
 *       still to write: the tool hangs) or finishes without that subtask's state (the tool writes an incomplete
 *       savepoint and reports success). Only the writer sees its failure; a failure of Flink's code around the writer
 *       leaves one DEBUG line, which {@link WriterTaskFailures} captures.
 *   <li>A reader's failure reaches Flink, but not always as the job's cause: when the failed task is a source whose
 *       coordinator still sends it an event, the job may fail with "An OperatorEvent from an OperatorCoordinator to a
 *       task was lost ... TaskNotRunningException: Task is not running, but in state FAILED" instead of what the reader
 *       threw (seen on a parallelism-2 inspect of a savepoint with a foreign key).
 * </ol>
 *
 * <p>The channel is this JVM's: the tools run their Flink in their own JVM ({@code ToolEnvironment}), so the functions'
 * subtasks and the tool that waits share it. A report for a run nobody watches (a job not run through {@code
 * ToolEnvironment}) is dropped; the function still throws.
 */
public final class StateFunctionReports {

    private static final Map<String, Watch> WATCHED = new ConcurrentHashMap<>();

    private StateFunctionReports() {}

    /** The reports of run {@code run}, until closed. */
    public static Watch watch(String run) {
        Watch watch = new Watch(run);
        if (WATCHED.putIfAbsent(run, watch) != null) {
            throw new IllegalStateException("Run " + run + " is watched already");
        }
        watch.writerTasks = WriterTaskFailures.capture(run);
        return watch;
    }

    /** Reports {@code failure} of run {@code run}; the first report of a run wins. */
    static void failed(String run, StateFunctionFailure failure) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null) {
            watch.failure.complete(failure);
        }
    }

    /**
     * A writer subtask of run {@code run} has written an element that carries {@code weight} units
     * ({@code DedupStateWriter#weight}).
     */
    static void wrote(String run, long weight) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null) {
            watch.written.add(weight);
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
    static void writerClosed(String run, int subtask, int subtasks) {
        Watch watch = run == null ? null : WATCHED.get(run);
        if (watch != null && !watch.snapshotsTaken.contains(subtask)) {
            watch.failure.complete(StateFunctionFailure.endedWithoutState(subtask, subtasks));
        }
    }

    /** The reports of one run: {@link #failure()} completes with the first reader or writer subtask that failed. */
    public static final class Watch implements AutoCloseable {

        private final String run;
        private final CompletableFuture<StateFunctionFailure> failure = new CompletableFuture<>();
        private final Set<Integer> snapshotsTaken = ConcurrentHashMap.newKeySet();
        private final LongAdder written = new LongAdder();
        private AutoCloseable writerTasks = () -> {};

        private Watch(String run) {
            this.run = run;
        }

        public CompletableFuture<StateFunctionFailure> failure() {
            return failure;
        }

        /** The units the run's writers have written so far, all subtasks ({@code DedupStateWriter#weight}). */
        public long written() {
            return written.sum();
        }

        @Override
        public void close() {
            try {
                writerTasks.close();
            } catch (Exception e) {
                throw new IllegalStateException("Could not stop capturing the writer tasks' failures of run " + run, e);
            } finally {
                WATCHED.remove(run, this);
            }
        }
    }
}
