package io.impressiondedup.local;

import java.time.Duration;

/**
 * Waits until every subtask of the running job's dedup operator has a watermark: the moment from which
 * the job judges lateness, and so the moment the held second half of the input may be released ({@link
 * GeneratedInput}).
 */
final class FirstWatermark {

    /** Far longer than a local job takes to read its first records and emit a watermark. */
    private static final Duration LIMIT = Duration.ofMinutes(5);
    private static final long POLL_MILLIS = 100;

    private FirstWatermark() {}

    static void await(StartedJob job, LocalRunSettings settings) throws Exception {
        JobMonitor monitor = new JobMonitor(job.webPort(), job.client().getJobID().toHexString());
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!monitor.everyDedupSubtaskHasAWatermark()) {
            if (job.client().getJobStatus().get().isTerminalState()) {
                throw new IllegalStateException("The job ended (" + job.client().getJobStatus().get()
                        + ") before its dedup operator had a watermark; see the log in the work dir");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The dedup operator has no watermark after " + LIMIT.toMinutes()
                        + " min: every source reader needs records of its own before there is one; with --count "
                        + settings.count() + " over --partitions " + settings.partitions() + " some partition may have none"
                        + " in the first half of the input");
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
