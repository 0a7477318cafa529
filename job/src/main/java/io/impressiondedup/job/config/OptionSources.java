package io.impressiondedup.job.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.DelegatingConfiguration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.Configuration;

/**
 * Where option values come from, each read into plain {@code key -> value} strings that a
 * {@link DedupJobConfig.Builder} then types and validates, so that an option is parsed the same way
 * whatever its source:
 *
 * <ol>
 *   <li>Flink's configuration ({@code config.yaml}, {@code -D}, {@code flinkConfiguration}), keys
 *       under {@value DedupJobOptions#FLINK_CONFIG_PREFIX};
 *   <li>a properties file named by {@code --config} (keys without dashes);
 *   <li>program arguments, {@code --name value} or {@code --name=value}; a boolean option given
 *       alone means true. (Not Flink's {@code ParameterTool}: it takes a value that starts with a
 *       dash for the next option's name, and Kafka's PEM keys, {@code -----BEGIN ...}, do.)
 * </ol>
 *
 * Later sources win. {@code kafka.<property>} keys are Kafka client properties. A key that is not a
 * declared option fails, naming it and where it came from: a typo must not silently fall back to a
 * default.
 */
public final class OptionSources {

    /** {@code --config file.properties}. */
    public static final String CONFIG_FILE = "config";

    private OptionSources() {}

    /** Whether the arguments ask for {@code --help} (or {@code -h}). */
    public static boolean helpRequested(String... args) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The program arguments, with the properties file they name (if any) under them: file values
     * first, arguments over them.
     */
    public static Map<String, String> fromArguments(String[] args, Collection<ConfigOption<?>> accepted, boolean kafkaProperties) {
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new InvalidOptionException("Unexpected argument '" + arg + "': options are --name value; --help lists them.");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (value == null) {
                boolean flag = isBoolean(name, accepted);
                if (i + 1 < args.length && !(flag && args[i + 1].startsWith("--"))) {
                    value = args[++i]; // taken as it is, even if it starts with dashes (a PEM key does)
                } else if (flag) {
                    value = "true";
                } else {
                    throw new InvalidOptionException("Option --" + name + " needs a value");
                }
            }
            given.put(name, value);
        }
        Map<String, String> merged = new LinkedHashMap<>();
        String file = given.remove(CONFIG_FILE);
        if (file != null) {
            merged.putAll(checked(readProperties(file), accepted, kafkaProperties, "", "--" + CONFIG_FILE + " " + file));
        }
        merged.putAll(checked(given, accepted, kafkaProperties, "--", "the program arguments"));
        return merged;
    }

    /** The keys under {@value DedupJobOptions#FLINK_CONFIG_PREFIX} of Flink's configuration, prefix removed. */
    public static Map<String, String> fromFlinkConfiguration(ReadableConfig flinkConfiguration, Collection<ConfigOption<?>> accepted) {
        Configuration all = flinkConfiguration instanceof Configuration
                ? (Configuration) flinkConfiguration
                : Configuration.fromMap(flinkConfiguration.toMap());
        Map<String, String> prefixed = new DelegatingConfiguration(all, DedupJobOptions.FLINK_CONFIG_PREFIX).toMap();
        return checked(prefixed, accepted, true, DedupJobOptions.FLINK_CONFIG_PREFIX, "Flink's configuration");
    }

    private static boolean isBoolean(String key, Collection<ConfigOption<?>> accepted) {
        for (ConfigOption<?> option : accepted) {
            if (option.key().equals(key) && option.hasDefaultValue() && option.defaultValue() instanceof Boolean) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> checked(Map<String, String> values, Collection<ConfigOption<?>> accepted, boolean kafkaProperties,
            String keyPrefix, String source) {
        List<String> known = new ArrayList<>();
        for (ConfigOption<?> option : accepted) {
            known.add(option.key());
        }
        for (String key : values.keySet()) {
            boolean kafka = kafkaProperties && key.startsWith(DedupJobOptions.KAFKA_PREFIX) && key.length() > DedupJobOptions.KAFKA_PREFIX.length();
            if (!kafka && !known.contains(key)) {
                List<String> names = new ArrayList<>();
                known.forEach(k -> names.add(keyPrefix + k));
                if (kafkaProperties) {
                    names.add(keyPrefix + DedupJobOptions.KAFKA_PREFIX + "<property>");
                }
                throw new InvalidOptionException("Unknown option " + keyPrefix + key + " in " + source + ". Known options: "
                        + String.join(", ", names) + ".");
            }
        }
        return values;
    }

    private static Map<String, String> readProperties(String file) {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            properties.load(in);
        } catch (IOException e) {
            throw new InvalidOptionException("Cannot read --" + CONFIG_FILE + " " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> map = new TreeMap<>();
        properties.forEach((k, v) -> map.put(k.toString().trim(), v.toString().trim()));
        return map;
    }

    /** The help text of a command taking {@code options}: each with its default (or "required") and description. */
    public static String help(String usage, String summary, Collection<ConfigOption<?>> options, boolean kafkaProperties) {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: ").append(usage).append("\n\n").append(summary).append("\n\nOptions:\n");
        for (ConfigOption<?> option : options) {
            sb.append("  --").append(option.key());
            if (option.hasDefaultValue()) {
                sb.append("  (default: ").append(OptionValues.format(option.defaultValue())).append(')');
            } else if (DedupJobOptions.REQUIRED.contains(option)) {
                sb.append("  (required)");
            }
            sb.append('\n');
            wrap(sb, DedupJobOptions.descriptionOf(option) + " Expected: " + DedupJobOptions.expectation(option) + ".");
        }
        if (kafkaProperties) {
            sb.append("  --").append(DedupJobOptions.KAFKA_PREFIX).append("<property> <value>\n");
            wrap(sb, "Passed to every Kafka client of the job (security.protocol, sasl.*, ssl.*, ...). Secrets are never logged in"
                    + " clear; keep them out of Flink's configuration (the web UI shows it): use a --config file or Kafka's"
                    + " config providers, e.g. ${file:/etc/secrets/kafka.properties:password}. The sinks' producers take "
                    + ProducerDefaults.describe() + ", the source's consumer " + ConsumerDefaults.describe() + " where these are not given.");
        }
        sb.append("  --").append(CONFIG_FILE).append(" <file.properties>\n");
        wrap(sb, "Read options from a properties file (keys without the leading dashes); program arguments win.");
        sb.append("  --help\n      Print this help.\n");
        return sb.toString();
    }

    private static void wrap(StringBuilder sb, String text) {
        String indent = "      ";
        int width = 100;
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split("\\s+")) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                sb.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            if (line.length() > indent.length()) {
                line.append(' ');
            }
            line.append(word);
        }
        sb.append(line).append('\n');
    }
}
