package io.impressiondedup.tools;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * The log of one run of a verb. By default it is what {@code log4j2.properties} of {@code dedup-tools.jar} sets: the
 * libraries the tools run (Flink's local cluster, the Kafka clients) print their errors only, so that a verb's output
 * is its own lines; at WARN, Flink's local cluster alone prints a dozen lines of its internals per job (no delegation
 * tokens, no web log file, no checkpointing in batch mode) and a failed task's stack trace. With {@code --verbose}
 * every logger prints from INFO up, Flink's own default for its log, until the run ends, when the configuration is
 * read again.
 */
final class ToolLog implements AutoCloseable {

    private final boolean verbose;

    private ToolLog(boolean verbose) {
        this.verbose = verbose;
    }

    static ToolLog forRun(boolean verbose) {
        if (verbose) {
            Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.INFO);
        }
        return new ToolLog(verbose);
    }

    @Override
    public void close() {
        if (verbose) {
            Configurator.reconfigure();
        }
    }
}
