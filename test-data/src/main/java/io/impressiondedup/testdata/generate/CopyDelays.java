package io.impressiondedup.testdata.generate;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * How long after its original a copy comes. Within the retention up to a minute short of it, beyond the retention
 * past retention + one bucket + 6 hours: never in between, where the verdict would depend on bucket boundaries and
 * the ground truth could not be exact.
 */
final class CopyDelays {

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();
    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long DAY = Duration.ofDays(1).toMillis();

    private final SplittableRandom random;
    private final long retentionMillis;
    private final long bucketMillis;

    CopyDelays(SplittableRandom random, Duration retention, Duration bucketSize) {
        this.random = random;
        this.retentionMillis = retention.toMillis();
        this.bucketMillis = bucketSize.toMillis();
    }

    /**
     * Delay of a copy within retention: 60% seconds (exponential, mean 5 s), 25% up to 30 minutes,
     * 10% up to a day, 5% up to a minute short of the retention.
     */
    long withinRetention() {
        double roll = random.nextDouble();
        long delay;
        if (roll < 0.60) {
            delay = (long) (-Math.log(1 - random.nextDouble()) * 5_000);
        } else if (roll < 0.85) {
            delay = 10_000 + random.nextLong(30 * MINUTE);
        } else if (roll < 0.95) {
            delay = 30 * MINUTE + random.nextLong(DAY - 30 * MINUTE);
        } else {
            delay = DAY + random.nextLong(Math.max(1, retentionMillis - DAY - MINUTE));
        }
        return Math.min(delay, retentionMillis - MINUTE);
    }

    /** Beyond retention + one bucket + 6 hours (up to 12 hours more): the original's bucket has expired by then. */
    long beyondRetention() {
        return retentionMillis + bucketMillis + 6 * HOUR + random.nextLong(12 * HOUR);
    }

    /** How long after a delayed client's flush a copy of it comes: 60% seconds (mean 5 s), 40% 10 s to 30 minutes. */
    long retryLag() {
        return random.nextDouble() < 0.6 ? (long) (-Math.log(1 - random.nextDouble()) * 5_000) : 10_000 + random.nextLong(30 * MINUTE);
    }
}
