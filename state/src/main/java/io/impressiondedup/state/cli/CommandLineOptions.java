package io.impressiondedup.state.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.description.Formatter;
import org.apache.flink.configuration.description.TextElement;
import org.apache.flink.util.TimeUtils;

/**
 * The options a command accepts, and the parser of {@code --name value} command lines for it.
 *
 * <ul>
 *   <li>{@code --name value} or {@code --name=value}; a boolean option given alone means true.
 *   <li>{@code --config file.properties} reads options from a file (keys without dashes); the
 *       command line wins over the file.
 *   <li>{@code --<prefix><property> value} for each registered pass-through prefix (such as {@code
 *       kafka.}) is collected as a property, never validated or logged in clear.
 *   <li>{@code --help} prints {@link #help()}, generated from the options' descriptions and defaults.
 * </ul>
 *
 * Unknown options and values that do not parse fail with an {@link InvalidCommandLineException}
 * naming the option.
 */
public final class CommandLineOptions {

    public static final String CONFIG_FILE = "config";

    private final String command;
    private final String summary;
    private final Map<String, ConfigOption<?>> options = new LinkedHashMap<>();
    private final Map<String, String> passThroughPrefixes = new LinkedHashMap<>();
    private final List<Rule<?>> rules = new ArrayList<>();
    private final Set<String> required = new LinkedHashSet<>();

    public CommandLineOptions(String command, String summary) {
        this.command = command;
        this.summary = summary;
    }

    public CommandLineOptions add(ConfigOption<?>... added) {
        for (ConfigOption<?> option : added) {
            if (options.put(option.key(), option) != null) {
                throw new IllegalArgumentException("Option --" + option.key() + " registered twice");
            }
        }
        return this;
    }

    /**
     * Marks options without a default as required: parsing fails naming the first one missing, and
     * the help says "(required)". Options without a default that are not marked are optional.
     */
    public CommandLineOptions required(ConfigOption<?>... requiredOptions) {
        for (ConfigOption<?> option : requiredOptions) {
            if (!options.containsKey(option.key()) || option.hasDefaultValue()) {
                throw new IllegalArgumentException("Option --" + option.key() + " is not registered or has a default");
            }
            required.add(option.key());
        }
        return this;
    }

    /**
     * Requires the option's value (given or default) to satisfy {@code valid}; otherwise parsing
     * fails with "Invalid value 'v' for --name: expected {@code expectation}".
     */
    public <T> CommandLineOptions require(ConfigOption<T> option, Predicate<T> valid, String expectation) {
        if (!options.containsKey(option.key())) {
            throw new IllegalArgumentException("Option --" + option.key() + " is not registered");
        }
        rules.add(new Rule<>(option, valid, expectation));
        return this;
    }

    /** Accepts {@code --<prefix><property> value} pairs, described as {@code description} in the help. */
    public CommandLineOptions addPassThrough(String prefix, String description) {
        passThroughPrefixes.put(prefix, description);
        return this;
    }

    public List<ConfigOption<?>> options() {
        return new ArrayList<>(options.values());
    }

    public CommandLine parse(String... args) {
        Map<String, String> given = new LinkedHashMap<>();
        Map<String, Map<String, String>> passThrough = new LinkedHashMap<>();
        boolean help = false;
        String configFile = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new InvalidCommandLineException("Unexpected argument '" + arg + "': options are --name value. "
                        + "Run '" + command + " --help' for the list.");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            boolean takesValue = !isBooleanOption(name);
            if (value == null) {
                if (i + 1 < args.length && (takesValue || !args[i + 1].startsWith("--"))) {
                    value = args[++i];
                } else if (takesValue) {
                    throw new InvalidCommandLineException("Option --" + name + " needs a value");
                } else {
                    value = "true";
                }
            }
            if (name.equals(CONFIG_FILE)) {
                configFile = value;
            } else {
                accept(name, value, given, passThrough, "the command line");
            }
        }
        Map<String, String> merged = new LinkedHashMap<>();
        if (configFile != null) {
            Map<String, Map<String, String>> fromFilePassThrough = new LinkedHashMap<>();
            Map<String, String> fromFile = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : readProperties(configFile).entrySet()) {
                accept(e.getKey(), e.getValue(), fromFile, fromFilePassThrough, configFile);
            }
            merged.putAll(fromFile);
            fromFilePassThrough.forEach((prefix, props) -> passThrough.merge(prefix, props, (fromArgs, fromConf) -> {
                Map<String, String> m = new LinkedHashMap<>(fromConf);
                m.putAll(fromArgs);
                return m;
            }));
        }
        merged.putAll(given);
        CommandLine parsed = new CommandLine(Configuration.fromMap(merged), passThrough, help);
        if (!help) {
            for (String key : required) {
                if (!merged.containsKey(key)) {
                    throw new InvalidCommandLineException("Missing required option --" + key + ": "
                            + plainText(options.get(key)) + " Run '" + command + " --help' for the list.");
                }
            }
            for (String key : merged.keySet()) {
                parsed.get(options.get(key)); // parse every given value now, so errors name the option early
            }
            for (Rule<?> rule : rules) {
                rule.check(parsed);
            }
        }
        return parsed;
    }

    private void accept(
            String name,
            String value,
            Map<String, String> given,
            Map<String, Map<String, String>> passThrough,
            String source) {
        for (String prefix : passThroughPrefixes.keySet()) {
            if (name.startsWith(prefix) && name.length() > prefix.length()) {
                passThrough.computeIfAbsent(prefix, p -> new LinkedHashMap<>()).put(name.substring(prefix.length()), value);
                return;
            }
        }
        if (!options.containsKey(name)) {
            throw new InvalidCommandLineException("Unknown option --" + name + " in " + source + ". Known options: "
                    + String.join(", ", knownNames()) + ".");
        }
        given.put(name, value);
    }

    private List<String> knownNames() {
        List<String> names = new ArrayList<>();
        for (String key : options.keySet()) {
            names.add("--" + key);
        }
        for (String prefix : passThroughPrefixes.keySet()) {
            names.add("--" + prefix + "<property>");
        }
        names.add("--" + CONFIG_FILE);
        return names;
    }

    private boolean isBooleanOption(String name) {
        ConfigOption<?> option = options.get(name);
        return option != null && option.hasDefaultValue() && option.defaultValue() instanceof Boolean;
    }

    private static Map<String, String> readProperties(String file) {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            properties.load(in);
        } catch (IOException e) {
            throw new InvalidCommandLineException("Cannot read --" + CONFIG_FILE + " " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> map = new TreeMap<>();
        properties.forEach((k, v) -> map.put(k.toString().trim(), v.toString().trim()));
        return map;
    }

    /** The help text: usage, summary, and every option with its default and description. */
    public String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: ").append(command).append(" [--name value ...]\n\n").append(summary).append("\n\nOptions:\n");
        for (ConfigOption<?> option : options.values()) {
            sb.append("  --").append(option.key());
            if (option.hasDefaultValue()) {
                sb.append("  (default: ").append(formatValue(option.defaultValue())).append(')');
            } else if (required.contains(option.key())) {
                sb.append("  (required)");
            }
            sb.append('\n');
            appendWrapped(sb, plainText(option), "      ");
        }
        for (Map.Entry<String, String> prefix : passThroughPrefixes.entrySet()) {
            sb.append("  --").append(prefix.getKey()).append("<property> <value>\n");
            appendWrapped(sb, prefix.getValue(), "      ");
        }
        sb.append("  --").append(CONFIG_FILE).append(" <file.properties>\n");
        appendWrapped(sb, "Read options from a properties file (keys without the leading dashes); the command line wins.", "      ");
        sb.append("  --help\n      Print this help.\n");
        return sb.toString();
    }

    /**
     * The effective settings, one {@code name = value} per line, with the values of secrets (keys
     * Flink considers sensitive: password, secret, jaas.config, token, ...) replaced by "******".
     */
    public String describe(CommandLine commandLine) {
        StringBuilder sb = new StringBuilder();
        for (ConfigOption<?> option : options.values()) {
            Object value = commandLine.getOptional(option).map(CommandLineOptions::formatValue).orElse("(not set)");
            sb.append("  ").append(option.key()).append(" = ").append(redact(option.key(), String.valueOf(value))).append('\n');
        }
        for (String prefix : passThroughPrefixes.keySet()) {
            for (Map.Entry<String, String> e : new TreeMap<>(commandLine.passThrough(prefix)).entrySet()) {
                sb.append("  ").append(prefix).append(e.getKey()).append(" = ").append(redact(e.getKey(), e.getValue())).append('\n');
            }
        }
        return sb.toString();
    }

    /** {@code value}, or "******" if {@code key} names a secret. */
    public static String redact(String key, String value) {
        return GlobalConfiguration.isSensitive(key) ? "******" : value;
    }

    static String formatValue(Object value) {
        if (value instanceof Duration) {
            return TimeUtils.formatWithHighestUnit((Duration) value);
        }
        return String.valueOf(value);
    }

    static String plainText(ConfigOption<?> option) {
        return PLAIN_TEXT.format(option.description());
    }

    private static void appendWrapped(StringBuilder sb, String text, String indent) {
        int width = 96;
        int column = 0;
        sb.append(indent);
        for (String word : text.split("\\s+")) {
            if (word.isEmpty()) {
                continue;
            }
            if (column > 0 && column + 1 + word.length() > width - indent.length()) {
                sb.append('\n').append(indent);
                column = 0;
            } else if (column > 0) {
                sb.append(' ');
                column++;
            }
            sb.append(word);
            column += word.length();
        }
        sb.append('\n');
    }

    /** A validity rule of one option. */
    private static final class Rule<T> {
        private final ConfigOption<T> option;
        private final Predicate<T> valid;
        private final String expectation;

        Rule(ConfigOption<T> option, Predicate<T> valid, String expectation) {
            this.option = option;
            this.valid = valid;
            this.expectation = expectation;
        }

        void check(CommandLine commandLine) {
            java.util.Optional<T> value = commandLine.getOptional(option);
            boolean ok;
            try {
                ok = value.isEmpty() || valid.test(value.get());
            } catch (RuntimeException e) {
                ok = false;
            }
            if (!ok) {
                throw new InvalidCommandLineException("Invalid value '" + formatValue(value.get()) + "' for --"
                        + option.key() + ": expected " + expectation);
            }
        }
    }

    private static final Formatter PLAIN_TEXT = new PlainTextFormatter();

    /** Renders option descriptions as plain text for the terminal. */
    private static final class PlainTextFormatter extends Formatter {
        @Override
        protected void formatLink(StringBuilder state, String link, String description) {
            state.append(description).append(" (").append(link).append(')');
        }

        @Override
        protected void formatLineBreak(StringBuilder state) {
            state.append(' ');
        }

        @Override
        protected void formatText(
                StringBuilder state, String format, String[] elements, java.util.EnumSet<TextElement.TextStyle> styles) {
            state.append(String.format(format, (Object[]) elements));
        }

        @Override
        protected void formatList(StringBuilder state, String[] entries) {
            for (String entry : entries) {
                state.append(" - ").append(entry);
            }
        }

        @Override
        protected Formatter newInstance() {
            return new PlainTextFormatter();
        }
    }
}
