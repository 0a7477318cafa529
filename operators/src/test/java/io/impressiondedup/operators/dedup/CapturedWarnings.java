package io.impressiondedup.operators.dedup;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** The warnings one class logs while this is open (log4j is the tests' logging backend). */
final class CapturedWarnings implements AutoCloseable {

    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final Logger logger;
    private final AbstractAppender appender;

    CapturedWarnings(Class<?> source) {
        logger = (Logger) LogManager.getLogger(source);
        appender = new AbstractAppender("captured-warnings-" + source.getSimpleName(), null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLevel().isMoreSpecificThan(Level.WARN)) {
                    messages.add(event.getMessage().getFormattedMessage());
                }
            }
        };
        appender.start();
        logger.addAppender(appender);
    }

    /** The warnings logged so far that contain {@code text}. */
    List<String> containing(String text) {
        return messages.stream().filter(m -> m.contains(text)).toList();
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        appender.stop();
    }
}
