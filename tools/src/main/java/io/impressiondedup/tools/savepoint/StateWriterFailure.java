package io.impressiondedup.tools.savepoint;

/**
 * A subtask of a tool's state writer ended without writing its state ({@link StateWriterReports}): the savepoint it was
 * writing is incomplete. The cause is what the writer threw, or {@code null} when it failed in Flink's code around it
 * (the State Processor API does not say why).
 */
public final class StateWriterFailure extends Exception {

    private static final long serialVersionUID = 1L;

    StateWriterFailure(int subtask, int subtasks, Throwable cause) {
        super(cause != null
                ? "writing the dedup state failed in subtask " + (subtask + 1) + " of " + subtasks
                : "subtask " + (subtask + 1) + " of " + subtasks + " of the dedup state writer ended without writing its state"
                        + " (Flink's State Processor API does not pass on why)", cause);
    }
}
