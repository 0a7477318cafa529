package io.impressiondedup.local;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The input rate of a running job away from its start and its end, from samples of its input count
 * (the accumulators, which reach the client every few seconds). A bounded run's overall rate counts
 * the deployment, the first checkpoint and the final commit; this one counts only records: it is the
 * slope between the first sample at or past {@link #FROM} of the input and the last sample before
 * all of it was read, so neither the start-up nor the wait for the final checkpoint is in it.
 */
final class SteadyRate {

    /** The share of the input read before the steady window opens: start-up and JIT warm-up are behind. */
    static final double FROM = 0.10;

    private record Sample(double seconds, long input) {}

    private final long total;
    private final List<Sample> samples = new ArrayList<>();

    SteadyRate(long total) {
        this.total = total;
    }

    void add(double seconds, long input) {
        samples.add(new Sample(seconds, input));
    }

    /** The first and last sample of the window, or null if it does not hold two samples a second apart. */
    private Sample[] window() {
        Sample first = null;
        Sample last = null;
        for (Sample s : samples) {
            if (s.input >= FROM * total && s.input < total) {
                if (first == null) {
                    first = s;
                }
                last = s;
            }
        }
        return first == null || last.seconds - first.seconds < 1 ? null : new Sample[] {first, last};
    }

    /** Records per second in the window, if it holds two samples at least a second apart. */
    OptionalDouble recordsPerSecond() {
        Sample[] w = window();
        return w == null ? OptionalDouble.empty() : OptionalDouble.of((w[1].input - w[0].input) / (w[1].seconds - w[0].seconds));
    }

    /** The window as text, e.g. "from 12% to 91% of the input, 20 s", or why there is none. */
    String describeWindow() {
        Sample[] w = window();
        if (w == null) {
            return "too few progress samples between " + Math.round(FROM * 100) + "% and the end of the input (a run this short has no steady part)";
        }
        return String.format(java.util.Locale.ROOT, "from %.0f%% to %.0f%% of the input, %.0f s", 100.0 * w[0].input / total,
                100.0 * w[1].input / total, w[1].seconds - w[0].seconds);
    }
}
