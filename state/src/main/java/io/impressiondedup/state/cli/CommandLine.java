package io.impressiondedup.state.cli;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * A parsed command line: typed options, plus the pass-through properties of each prefix (for
 * example every {@code --kafka.<property>}).
 */
public final class CommandLine {

    private final Configuration options;
    private final Map<String, Map<String, String>> passThrough;
    private final boolean helpRequested;

    CommandLine(Configuration options, Map<String, Map<String, String>> passThrough, boolean helpRequested) {
        this.options = options;
        this.passThrough = passThrough;
        this.helpRequested = helpRequested;
    }

    public boolean helpRequested() {
        return helpRequested;
    }

    /** The option's value, or its default; a value that does not parse fails naming the option. */
    public <T> T get(ConfigOption<T> option) {
        try {
            return options.get(option);
        } catch (IllegalArgumentException e) {
            throw invalidValue(option, e);
        }
    }

    /** The option's value if given (or defaulted), failing with the option's name if it is required. */
    public <T> T getRequired(ConfigOption<T> option) {
        return getOptional(option)
                .orElseThrow(() -> new InvalidCommandLineException("Missing required option --" + option.key()
                        + ": " + CommandLineOptions.plainText(option)));
    }

    public <T> Optional<T> getOptional(ConfigOption<T> option) {
        try {
            Optional<T> value = options.getOptional(option);
            return value.isPresent() || !option.hasDefaultValue() ? value : Optional.of(option.defaultValue());
        } catch (IllegalArgumentException e) {
            throw invalidValue(option, e);
        }
    }

    public boolean contains(ConfigOption<?> option) {
        return options.contains(option);
    }

    /** The {@code --<prefix><property> value} pairs, keyed by property (prefix removed). */
    public Map<String, String> passThrough(String prefix) {
        return Collections.unmodifiableMap(passThrough.getOrDefault(prefix, Map.of()));
    }

    /** All typed options as given, as a Flink configuration. */
    public Configuration toConfiguration() {
        return new Configuration(options);
    }

    private static InvalidCommandLineException invalidValue(ConfigOption<?> option, IllegalArgumentException e) {
        String value = e.getMessage() == null ? "" : e.getMessage();
        return new InvalidCommandLineException(
                "Invalid value for --" + option.key() + ": " + rootMessage(e) + " (" + CommandLineOptions.plainText(option)
                        + ")",
                e);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + t.getMessage();
    }
}
