package io.impressiondedup.testdata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.UnmatchedArgumentException;

/** What both commands take besides their options: {@code --kafka.<property>} arguments, the spec, the tool. */
abstract class TestDataSubcommand implements Callable<Integer> {

    private static final String KAFKA_PREFIX = "--kafka.";

    /** {@code --kafka.<property> value} pairs (picocli has no option prefixes); anything else is rejected. */
    @Unmatched
    List<String> unmatched = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @ParentCommand
    TestDataCommand parent;

    /**
     * The {@code --kafka.<property> value} (or {@code --kafka.<property>=value}) pairs among the
     * arguments picocli did not match, as client properties; any other unmatched argument is an unknown
     * option.
     */
    Map<String, String> kafkaProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < unmatched.size(); i++) {
            String arg = unmatched.get(i);
            if (!arg.startsWith(KAFKA_PREFIX) || arg.length() == KAFKA_PREFIX.length()) {
                throw new UnmatchedArgumentException(spec.commandLine(),
                        (arg.startsWith("-") ? "Unknown option: '" : "Unexpected argument: '") + arg + "'");
            }
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                properties.put(arg.substring(KAFKA_PREFIX.length(), eq), arg.substring(eq + 1));
            } else if (i + 1 < unmatched.size()) {
                properties.put(arg.substring(KAFKA_PREFIX.length()), unmatched.get(++i));
            } else {
                throw new ParameterException(spec.commandLine(), "Missing value for option '" + arg + "'");
            }
        }
        return properties;
    }

    /** {@code value}, or a bad command line naming the option that this use of the command requires. */
    <T> T required(T value, String option) {
        if (value == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '" + option + "'");
        }
        return value;
    }
}
