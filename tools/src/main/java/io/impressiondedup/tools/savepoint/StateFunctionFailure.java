package io.impressiondedup.tools.savepoint;

/**
 * A subtask of a tool's state reader or writer failed ({@link StateFunctionReports}). The cause is what the function
 * threw, or {@code null} when a writer's subtask ended without its state because Flink's code around it failed (the
 * State Processor API does not say why).
 */
public final class StateFunctionFailure extends Exception {

    private static final long serialVersionUID = 1L;

    StateFunctionFailure(String message, Throwable cause) {
        super(message, cause);
    }

    static StateFunctionFailure threw(String activity, int subtask, int subtasks, Throwable cause) {
        return new StateFunctionFailure(activity + " the dedup state failed in subtask " + (subtask + 1) + " of " + subtasks, cause);
    }

    static StateFunctionFailure endedWithoutState(int subtask, int subtasks) {
        return new StateFunctionFailure("subtask " + (subtask + 1) + " of " + subtasks + " of the dedup state writer ended without"
                + " writing its state (Flink's State Processor API does not pass on why)", null);
    }
}
