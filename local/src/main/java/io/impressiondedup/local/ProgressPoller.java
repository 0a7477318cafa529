package io.impressiondedup.local;

import io.impressiondedup.job.Accounting;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;

/**
 * Waits for the started job to finish, and meanwhile, once a second: reads the REST API's gauges
 * ({@link JobMonitor}), and prints a progress line whenever the input count has moved. Accumulators
 * reach the client with the TaskManagers' heartbeats, so a line appears only when a heartbeat has
 * brought a new count; each is also a sample of the {@link SteadyRate}.
 */
final class ProgressPoller {

    /** What the run learned from the finished job. */
    record FinishedJob(Map<String, Object> accumulators, double seconds, SteadyRate steady, JobMonitor monitor) {}

    private final StartedJob job;
    private final long count;
    private final RunConsole console;

    /** Polls {@code job}, whose input is {@code count} records; progress goes to {@code console}. */
    ProgressPoller(StartedJob job, long count, RunConsole console) {
        this.job = job;
        this.count = count;
        this.console = console;
    }

    /** Returns once the job has finished. */
    FinishedJob awaitFinish() throws Exception {
        Stopwatch started = job.running();
        JobMonitor monitor = new JobMonitor(job.webPort(), job.client().getJobID().toHexString());
        SteadyRate steady = new SteadyRate(count);
        long lastInput = -1;
        JobExecutionResult result;
        while (true) {
            try {
                result = job.client().getJobExecutionResult().get(1, TimeUnit.SECONDS);
                break;
            } catch (TimeoutException e) {
                monitor.poll();
                Map<String, Object> accumulators;
                try {
                    accumulators = job.client().getAccumulators().get(2, TimeUnit.SECONDS);
                } catch (Exception notYet) {
                    continue;
                }
                long input = Accounting.count(accumulators, Accounting.INPUT);
                if (input != lastInput && input > 0) {
                    steady.add(started.seconds(), input);
                    printProgress(started, input, accumulators);
                    lastInput = input;
                }
            }
        }
        return new FinishedJob(result.getAllAccumulatorResults(), started.seconds(), steady, monitor);
    }

    private void printProgress(Stopwatch started, long input, Map<String, Object> accumulators) {
        console.printf("  %5.0f s  %,.0f records/s  %s%n", started.seconds(), input / started.seconds(), Accounting.summary(accumulators));
        if (input >= count) {
            console.printf("  %5.0f s  all input read; the final checkpoint commits the output%n", started.seconds());
        }
    }
}
