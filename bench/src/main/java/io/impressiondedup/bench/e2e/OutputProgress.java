package io.impressiondedup.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * A running job's steady rate, read from outside the job: the output topic's end offsets (written,
 * committed or not) sampled a few times a second. The same measurement for every variant, the byte
 * pass-through included, and nothing added to the jobs.
 *
 * <p>The steady window is the part of the run between 10% and 90% of its final output: after the
 * deployment, the Kafka clients' start and the JIT's first compilations, and before the end of input
 * and the final commit. The output's slope there is converted to input records per second with the
 * run's own ratio of input to output (a dedup variant writes its unique impressions only, which the
 * generator spreads evenly through the input). Transaction markers take one offset per partition and
 * checkpoint: negligible next to the records.
 */
final class OutputProgress {

    static final double FROM = 0.10;
    static final double TO = 0.90;

    private record Sample(double seconds, long written) {}

    private final List<Sample> samples = new ArrayList<>();
    private final long start = System.nanoTime();

    void add(long written) {
        samples.add(new Sample((System.nanoTime() - start) / 1e9, written));
    }

    /** Input records per second in the steady window, given the run's input count; empty if the window holds too few samples. */
    OptionalDouble steadyInputRate(long inputRecords) {
        long total = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).written();
        Sample first = null;
        Sample last = null;
        for (Sample s : samples) {
            if (s.written() >= FROM * total && s.written() <= TO * total) {
                if (first == null) {
                    first = s;
                }
                last = s;
            }
        }
        if (first == null || last.seconds() - first.seconds() < 1 || last.written() == first.written()) {
            return OptionalDouble.empty();
        }
        double outputRate = (last.written() - first.written()) / (last.seconds() - first.seconds());
        return OptionalDouble.of(outputRate * inputRecords / total);
    }
}
