package io.impressiondedup.testdata.generate;

import java.util.SplittableRandom;

/**
 * Decides which impressions have copies, how many, and when each is written with which event time; queues them in
 * the generator's {@link DueTimeQueue} by due time, then by their original's seq.
 *
 * <p>An impression schedules copies with {@link #copyProbability}, 1 + Geometric(0.2) of them. Each is beyond the
 * retention with the beyond-retention share, else within it ({@link CopyDelays}). The copies beyond the retention of
 * one impression are stamped within the retention of each other ({@link BeyondRetentionCopies}).
 *
 * <p>A copy of an impression written on time is written when its clock reaches the event time it carries. A copy of
 * a delayed client's impression is written after the flush that brought the impression: half of those within the
 * retention are re-sent with the original timestamp (a retry of the flush), seconds to 30 minutes later; the others
 * carry a later timestamp, written at that time or, if that has passed already, with the flush.
 */
final class CopyScheduler {

    /** Copies an impression schedules when it schedules any: 1 + Geometric(0.2), mean 1.25. */
    private static final double MEAN_COPIES = 1.25;

    private final SplittableRandom random;
    private final DueTimeQueue<PendingRecord> pending;
    private final CopyDelays delays;
    private final long retentionMillis;
    private final double beyondRetentionShare;
    /** Probability that a new impression schedules copies, so that copies make up the duplicate share of all records. */
    private final double copyProbability;

    CopyScheduler(GeneratorSettings settings, SplittableRandom random, DueTimeQueue<PendingRecord> pending) {
        this.random = random;
        this.pending = pending;
        this.delays = new CopyDelays(random, settings.retention, settings.bucketSize);
        this.retentionMillis = settings.retention.toMillis();
        this.beyondRetentionShare = settings.beyondRetentionShare;
        double originals = 1 - settings.duplicateShare - settings.lateShare - settings.malformedShare - settings.futureShare;
        this.copyProbability = Math.min(1.0, settings.duplicateShare / (originals * MEAN_COPIES));
    }

    /** Copies, if any, of the impression {@code seq} written on time: each written when the clock reaches its event time. */
    void scheduleCopiesOf(long seq, String requestId, String adId, Payload payload, long eventTime) {
        schedule(seq, requestId, adId, payload, eventTime, false, 0);
    }

    /** Copies, if any, of the delayed client's impression {@code seq}, flushed at {@code flushClock}: written after it. */
    void scheduleCopiesOfFlushed(long seq, String requestId, String adId, Payload payload, long eventTime, long flushClock) {
        schedule(seq, requestId, adId, payload, eventTime, true, flushClock);
    }

    private void schedule(long seq, String requestId, String adId, Payload payload, long eventTime, boolean flushed, long flushClock) {
        if (random.nextDouble() >= copyProbability) {
            return;
        }
        int copies = 1;
        while (random.nextDouble() < 0.2) {
            copies++;
        }
        BeyondRetentionCopies beyondCopies = null;
        for (int i = 0; i < copies; i++) {
            boolean beyond = random.nextDouble() < beyondRetentionShare;
            long copyTime;
            long due;
            if (beyond) {
                long delay = delays.beyondRetention();
                beyondCopies = beyondCopies == null ? new BeyondRetentionCopies(delay, retentionMillis) : beyondCopies;
                copyTime = eventTime + beyondCopies.near(delay);
                due = flushed ? Math.max(copyTime, flushClock) : copyTime;
            } else if (!flushed) {
                copyTime = eventTime + delays.withinRetention();
                due = copyTime;
            } else if (random.nextDouble() < 0.5) {
                copyTime = eventTime;
                due = flushClock + delays.retryLag();
            } else {
                copyTime = eventTime + delays.withinRetention();
                due = Math.max(copyTime, flushClock + delays.retryLag());
            }
            pending.add(due, seq, PendingRecord.copy(copyTime, seq, requestId, adId, payload, beyond ? beyondCopies : null));
        }
    }
}
