package io.impressiondedup.local;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.StateBackendType;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.apache.flink.configuration.Configuration;

/**
 * What one local run does, from its checked options ({@link LocalRunOptions}): how much input over how
 * long an event-time span, and the job settings it passes on. The generator keeps the job's default
 * retention and bucket size, so its ground truth classifies records by the rules the job runs under.
 */
record LocalRunSettings(Configuration options, Path workDir, long count, double fpp, int parallelism, Duration allowedLateness,
        Duration span, GeneratorSettings generator) {

    /** The shortest event time the stream spans: the job's retention + allowed lateness (defaults) + 1 day. */
    static final Duration MIN_SPAN = DedupJobOptions.RETENTION.defaultValue().plus(DedupJobOptions.ALLOWED_LATENESS.defaultValue())
            .plusDays(1);

    /** The settings of {@code options}; fails with an {@link InvalidOptionException} if the generator refuses them. */
    static LocalRunSettings of(Configuration options, Path workDir) {
        long count = options.get(LocalRunOptions.COUNT);
        Duration allowedLateness = options.get(DedupJobOptions.ALLOWED_LATENESS);
        // Long enough for buckets to expire and for records to be late under the job's rules, whatever the lateness.
        Duration span = max(MIN_SPAN, DedupJobOptions.RETENTION.defaultValue().plus(allowedLateness).plusDays(1));
        GeneratorSettings generator;
        try {
            generator = GeneratorSettings.builder()
                    .count(count).seed(options.get(LocalRunOptions.SEED)).duplicateShare(options.get(LocalRunOptions.DUPLICATE_SHARE))
                    .span(span)
                    .retention(DedupJobOptions.RETENTION.defaultValue()).bucketSize(DedupJobOptions.BUCKET_SIZE.defaultValue())
                    .allowedLateness(allowedLateness).delayedShare(options.get(LocalRunOptions.DELAYED_SHARE))
                    .delayMin(options.get(LocalRunOptions.DELAY_MIN)).delayMax(options.get(LocalRunOptions.DELAY_MAX)).build();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException(e.getMessage(), e);
        }
        return new LocalRunSettings(options, workDir, count, options.get(DedupJobOptions.FPP), LocalRunOptions.parallelism(options),
                allowedLateness, span, generator);
    }

    StateBackendType stateBackend() {
        return options.get(DedupJobOptions.STATE_BACKEND);
    }

    int partitions() {
        return options.get(LocalRunOptions.PARTITIONS);
    }

    int webPort() {
        return options.get(LocalRunOptions.WEB_PORT);
    }

    /** The job's {@code --capacity}, planned as a user would: the expected unique impressions per day, with 50% headroom. */
    long capacityPerDay() {
        return (long) Math.ceil(1.5 * count * (1 - options.get(LocalRunOptions.DUPLICATE_SHARE)) * Duration.ofDays(1).toMillis()
                / span.toMillis());
    }

    /** The run's first line: what it generates and how the job is set up. */
    String describe() {
        return String.format(Locale.ROOT, "Local run: %,d impressions over %s of event time (%s%% from delayed clients,"
                        + " %s to %s late), parallelism %d, %s state, FPP %s, allowed lateness %s; work dir %s",
                count, Readable.duration(span), 100 * options.get(LocalRunOptions.DELAYED_SHARE),
                Readable.duration(options.get(LocalRunOptions.DELAY_MIN)), Readable.duration(options.get(LocalRunOptions.DELAY_MAX)),
                parallelism, stateBackend().toString(), fpp, Readable.duration(allowedLateness), workDir);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
