package io.impressiondedup.local;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The lines one logger (and its children) writes at INFO and above while this is open, for tests
 * that assert what the job logs. Leaves the logging configuration as it found it on {@link #close()}.
 */
final class CapturedLog implements AutoCloseable {

    private final String loggerName;
    private final LoggerContext context;
    private final AbstractAppender appender;
    private final List<LogEvent> events = new CopyOnWriteArrayList<>();

    private CapturedLog(String loggerName, Consumer<String> onMessage) {
        this.loggerName = loggerName;
        this.context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        if (configuration.getLoggers().containsKey(loggerName)) {
            throw new IllegalStateException("Logger " + loggerName + " is configured already; capture a child or parent of it");
        }
        appender = new AbstractAppender("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                LogEvent kept = event.toImmutable();
                events.add(kept);
                onMessage.accept(kept.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerConfig logger = LoggerConfig.newBuilder().withLoggerName(loggerName).withLevel(Level.INFO).withAdditivity(true)
                .withConfig(configuration).build();
        logger.addAppender(appender, Level.INFO, null);
        configuration.addLogger(loggerName, logger);
        context.updateLoggers();
    }

    /** Captures what {@code type}'s logger writes. */
    static CapturedLog of(Class<?> type) {
        return new CapturedLog(type.getName(), message -> {});
    }

    /**
     * Captures what {@code type}'s logger writes, and hands each message to {@code onMessage} as it is logged, on the
     * logging thread, before that thread goes on: a test can act at an exact point of the code under test.
     */
    static CapturedLog of(Class<?> type, Consumer<String> onMessage) {
        return new CapturedLog(type.getName(), onMessage);
    }

    /** The messages logged at {@code level}, in order. */
    List<String> messages(Level level) {
        return events.stream().filter(e -> e.getLevel() == level).map(e -> e.getMessage().getFormattedMessage())
                .collect(Collectors.toList());
    }

    /**
     * The messages logged at {@code level} by the calling thread, in order. The ITs beside this one in the same JVM
     * (junit-platform.properties) log through the same loggers; this leaves their lines out.
     */
    List<String> messagesOfThisThread(Level level) {
        String thread = Thread.currentThread().getName();
        return events.stream().filter(e -> e.getLevel() == level && thread.equals(e.getThreadName()))
                .map(e -> e.getMessage().getFormattedMessage()).collect(Collectors.toList());
    }

    @Override
    public void close() {
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
