package io.impressiondedup.local;

import java.time.Duration;
import java.util.Locale;

/** Durations and sizes as the local run prints them and as the options take them. */
final class Readable {

    private Readable() {}

    /** A duration as the options take it: {@code 4d}, {@code 20h}, {@code 90min}, {@code 1500ms}. */
    static String duration(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % Duration.ofDays(1).toMillis() == 0) {
            return ms / Duration.ofDays(1).toMillis() + "d";
        } else if (ms != 0 && ms % Duration.ofHours(1).toMillis() == 0) {
            return ms / Duration.ofHours(1).toMillis() + "h";
        } else if (ms != 0 && ms % Duration.ofMinutes(1).toMillis() == 0) {
            return ms / Duration.ofMinutes(1).toMillis() + "min";
        }
        return ms + "ms";
    }

    /** A size in KiB below 1 MiB, else in MiB; {@code n/a} for a negative (unknown) size. */
    static String bytes(long bytes) {
        if (bytes < 0) {
            return "n/a";
        }
        return bytes < 1 << 20 ? String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0) : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
