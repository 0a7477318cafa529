package io.impressiondedup.tools.savepoint;

/**
 * A subtask of a tool's state reader or writer failed ({@link StateFunctionReports}). The cause is what the function
 * threw, or what Flink's code around a writer threw ({@link WriterTaskFailures}), or {@code null} when a writer's
 * subtask ended without its state and neither was seen.
 */
public final class StateFunctionFailure extends Exception {

    private static final long serialVersionUID = 1L;

    StateFunctionFailure(String message, Throwable cause) {
        super(message, cause);
    }

    static StateFunctionFailure threw(String activity, int subtask, int subtasks, Throwable cause) {
        return new StateFunctionFailure(activity + " the dedup state failed in subtask " + (subtask + 1) + " of " + subtasks, cause);
    }

    static StateFunctionFailure taskFailed(int subtask, Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return new StateFunctionFailure("the task of subtask " + (subtask + 1) + " of the dedup state writer failed around the writer: "
                + cause + (root == cause ? "" : "; root cause: " + root), cause);
    }

    static StateFunctionFailure endedWithoutState(int subtask, int subtasks) {
        return new StateFunctionFailure("subtask " + (subtask + 1) + " of " + subtasks + " of the dedup state writer ended without"
                + " writing its state (Flink's State Processor API does not pass on why)", null);
    }
}
