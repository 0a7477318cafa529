package io.impressiondedup.testdata.generate;

import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Request ids as ad servers write them: random UUID v4, time-based UUID v1 (from a few hosts, so their leading digits
 * barely change: the reason the job hashes the key before sharding), and non-UUID strings; unique by construction.
 */
final class RequestIds {

    private static final long UUID_EPOCH_OFFSET_MILLIS = 12_219_292_800_000L; // 1582-10-15 to 1970-01-01
    private static final int HOSTS = 8;

    private final SplittableRandom random;
    private final double nonUuidShare;
    private final double timeBasedUuidShare;
    /** The node and clock sequence of each host writing time-based ids. */
    private final long[] timeBasedNodes = new long[HOSTS];
    private final int[] timeBasedClockSequences = new int[HOSTS];
    /** Tells apart time-based ids drawn in the same millisecond. */
    private long timeBasedCounter;

    /** Draws the hosts of the time-based ids from {@code random}. */
    RequestIds(SplittableRandom random, double nonUuidShare, double timeBasedUuidShare) {
        this.random = random;
        this.nonUuidShare = nonUuidShare;
        this.timeBasedUuidShare = timeBasedUuidShare;
        for (int i = 0; i < HOSTS; i++) {
            timeBasedNodes[i] = (random.nextLong() & 0xFFFF_FFFF_FFFFL) | 0x0100_0000_0000L; // multicast bit: random node
            timeBasedClockSequences[i] = random.nextInt(1 << 14);
        }
    }

    /**
     * A new request id: by default 65% random UUID v4, 30% time-based v1 at {@code clock} (structured leading digits),
     * 5% non-UUID, made unique by {@code number} (no two requests may share it).
     */
    String next(long number, long clock) {
        double roll = random.nextDouble();
        if (roll < nonUuidShare) {
            return "req-" + Long.toString(number, 36) + "-" + Integer.toString(random.nextInt(Integer.MAX_VALUE), 36);
        }
        if (roll < nonUuidShare + timeBasedUuidShare) {
            int host = random.nextInt(HOSTS);
            long time = (clock + UUID_EPOCH_OFFSET_MILLIS) * 10_000 + (timeBasedCounter++ % 10_000);
            long msb = (time << 32) | ((time >>> 16) & 0xFFFF0000L) | 0x1000L | ((time >>> 48) & 0x0FFFL);
            long lsb = 0x8000_0000_0000_0000L | ((long) timeBasedClockSequences[host] << 48) | timeBasedNodes[host];
            return new UUID(msb, lsb).toString();
        }
        long msb = (random.nextLong() & 0xFFFF_FFFF_FFFF_0FFFL) | 0x4000L;
        long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb).toString();
    }
}
