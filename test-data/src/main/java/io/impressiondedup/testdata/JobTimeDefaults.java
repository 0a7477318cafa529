package io.impressiondedup.testdata;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The defaults of {@code test-data generate}'s options that must match the job's: {@code --retention}, {@code
 * --bucket-size} and {@code --allowed-lateness} default to {@link TimeBuckets}' defaults, the job's own, so the two
 * cannot drift apart. Given to picocli as text in the command line's form ({@code 2d}), which {@code --help} shows.
 */
final class JobTimeDefaults implements IDefaultValueProvider {

    @Override
    public String defaultValue(ArgSpec argSpec) {
        if (!(argSpec instanceof OptionSpec option)) {
            return null;
        }
        Duration duration = switch (option.longestName()) {
            case "--retention" -> TimeBuckets.DEFAULT_RETENTION;
            case "--bucket-size" -> TimeBuckets.DEFAULT_BUCKET_SIZE;
            case "--allowed-lateness" -> TimeBuckets.DEFAULT_ALLOWED_LATENESS;
            default -> null;
        };
        return duration == null ? null : commandLineText(duration);
    }

    /** {@code duration} as written on the command line: in its highest whole unit, without a space ({@code 2d}, {@code 6h}). */
    static String commandLineText(Duration duration) {
        return TimeUtils.formatWithHighestUnit(duration).replace(" ", "");
    }
}
