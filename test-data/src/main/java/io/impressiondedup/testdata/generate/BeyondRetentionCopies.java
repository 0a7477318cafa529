package io.impressiondedup.testdata.generate;

import java.time.Duration;

/**
 * The copies beyond the retention of one impression: one identity, so copies of each other if
 * stamped within the retention of each other, which {@link #near} makes them. The first written
 * opens their group.
 */
final class BeyondRetentionCopies {

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();

    private final long firstDelay;
    private final long halfSpread;
    /** Sequence number of the first of them written, -1 before. */
    long group = -1;

    BeyondRetentionCopies(long firstDelay, long retentionMillis) {
        this.firstDelay = firstDelay;
        // Any two within R - 1 min of each other. Moved towards the first one's, a delay stays within the
        // range drawn from, so every one of them stays beyond the retention of the original.
        this.halfSpread = (retentionMillis - MINUTE) / 2;
    }

    /** A delay drawn for another of them, moved (towards the first one's) to within half a retention of the first one's. */
    long near(long delay) {
        return Math.max(firstDelay - halfSpread, Math.min(firstDelay + halfSpread, delay));
    }
}
