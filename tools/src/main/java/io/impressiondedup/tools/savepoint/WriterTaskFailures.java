package io.impressiondedup.tools.savepoint;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Why a state writer's subtask ended without its state when Flink's code around the writer failed, not the writer: the
 * second half of {@link StateFunctionReports}' channel.
 *
 * <p>The State Processor API runs each writer subtask as a stream task on a thread of its own, named {@code
 * <operator>-bootstrap-thread-<subtask>} ({@code BootstrapStreamTaskRunner}, Flink 2.3). When that task fails (a state
 * backend that cannot start, a key group out of range, a snapshot that cannot be written), the thread passes the
 * failure to the task's clean-up and drops it; the clean-up's one trace of it is a DEBUG line of {@code StreamTask}'s
 * logger, {@code "Cleanup StreamTask (...)"}, logged with the failure before the task's operators are closed. While a
 * run is watched, this captures that line from bootstrap threads and reports its failure for the run, so the report
 * reaches the tool before the writer's close would report that the subtask "ended without its state".
 *
 * <p>The capture is a logger of its own for {@code StreamTask} at DEBUG, not additive, whose other appenders are the
 * root logger's at the root's level: what the tool's log printed of {@code StreamTask} before, it prints still.
 */
final class WriterTaskFailures extends AbstractAppender {

    static final String STREAM_TASK_LOGGER = "org.apache.flink.streaming.runtime.tasks.StreamTask";
    private static final Pattern BOOTSTRAP_THREAD = Pattern.compile(".*-bootstrap-thread-(\\d+)");

    private final String run;

    private WriterTaskFailures(String run) {
        super("dedup-writer-task-failures-" + run, null, null, true, Property.EMPTY_ARRAY);
        this.run = run;
    }

    /** Captures failed writer tasks for {@code run} until closed. Only one run of a JVM is captured at a time. */
    static synchronized AutoCloseable capture(String run) {
        if (!(LogManager.getContext(false) instanceof LoggerContext context)) {
            return () -> {}; // another logging back end: the generic report stays
        }
        Configuration configuration = context.getConfiguration();
        LoggerConfig root = configuration.getRootLogger();
        LoggerConfig streamTask = new LoggerConfig(STREAM_TASK_LOGGER, Level.DEBUG, false);
        for (Appender appender : root.getAppenders().values()) {
            streamTask.addAppender(appender, root.getLevel(), null);
        }
        WriterTaskFailures failures = new WriterTaskFailures(run);
        failures.start();
        streamTask.addAppender(failures, Level.DEBUG, null);
        LoggerConfig before = configuration.getLoggers().get(STREAM_TASK_LOGGER);
        configuration.addLogger(STREAM_TASK_LOGGER, streamTask);
        context.updateLoggers();
        return () -> {
            synchronized (WriterTaskFailures.class) {
                configuration.removeLogger(STREAM_TASK_LOGGER);
                if (before != null) {
                    configuration.addLogger(STREAM_TASK_LOGGER, before);
                }
                context.updateLoggers();
                failures.stop();
            }
        };
    }

    @Override
    public void append(LogEvent event) {
        Throwable failure = event.getThrown();
        Matcher thread = BOOTSTRAP_THREAD.matcher(event.getThreadName() == null ? "" : event.getThreadName());
        if (failure != null && thread.matches() && event.getMessage().getFormattedMessage().startsWith("Cleanup StreamTask")) {
            StateFunctionReports.failed(run, StateFunctionFailure.taskFailed(Integer.parseInt(thread.group(1)), failure));
        }
    }
}
