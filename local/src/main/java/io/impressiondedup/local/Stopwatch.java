package io.impressiondedup.local;

/** Seconds since a start, on the monotonic clock: the phases' times in the report. */
final class Stopwatch {

    private final long startNanos = System.nanoTime();

    static Stopwatch start() {
        return new Stopwatch();
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
