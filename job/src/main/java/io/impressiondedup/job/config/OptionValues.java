package io.impressiondedup.job.config;

import java.time.Duration;
import java.util.Collection;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

/**
 * Option values between text and type: each given value typed and checked against its option's rule ({@link
 * DedupJobOptions#ruleOf}), failing with the value as given and what was expected, and a typed value written back as
 * the options take it. Used by the job's configuration and by every tool that accepts a subset of the options.
 */
public final class OptionValues {

    private OptionValues() {}

    /** Types every given value of {@code accepted} and checks its rule; throws naming the first option at fault. */
    public static void check(Configuration options, Collection<ConfigOption<?>> accepted) {
        for (ConfigOption<?> option : accepted) {
            checkOne(options, option);
        }
    }

    private static <T> void checkOne(Configuration options, ConfigOption<T> option) {
        T value;
        try {
            value = options.getOptional(option).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid value '" + options.toMap().get(option.key()) + "' for --" + option.key()
                    + ": expected " + DedupJobOptions.expectation(option), e);
        }
        DedupJobOptions.Rule<T> rule = DedupJobOptions.ruleOf(option);
        if (value != null && rule != null && !rule.valid.test(value)) {
            String given = options.containsKey(option.key()) ? options.toMap().get(option.key()) : format(value) + " (the default)";
            throw new InvalidOptionException("Invalid value '" + given + "' for --" + option.key() + ": expected " + rule.expected);
        }
    }

    /** A value as the options take it: durations as {@code 2 d}, everything else by its {@code toString()}. */
    static String format(Object value) {
        return value instanceof Duration ? TimeUtils.formatWithHighestUnit((Duration) value) : String.valueOf(value);
    }
}
