package io.impressiondedup.bench.e2e;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Everything one benchmark run measured; a section that did not run leaves its fields null. */
final class BenchmarkResults {

    final Instant started;
    final Machine machine;
    Duration duration;
    Workload workload;
    Map<Variant, List<JobRun.Result>> throughput;
    long redisKeys;
    long redisUnique;
    List<RedisComparison.Result> redis;
    List<FppUnderLoad.Point> fppUnderLoad;
    Map<Long, EndToEndBenchmark.ScalingPoint> scaling;

    BenchmarkResults(Instant started, Machine machine) {
        this.started = started;
        this.machine = machine;
    }

    /** The run of median throughput (the lower middle one for an even count), among those whose state could be read if any. */
    static JobRun.Result medianRun(List<JobRun.Result> runs) {
        List<JobRun.Result> readable = runs.stream().filter(r -> r.checkpointBytes() >= 0).toList();
        List<JobRun.Result> sorted = (readable.isEmpty() ? runs : readable).stream()
                .sorted(Comparator.comparingDouble(JobRun.Result::eventsPerSecond)).toList();
        return sorted.get((sorted.size() - 1) / 2);
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    double medianEventsPerSecond(Variant variant) {
        return median(throughput.get(variant).stream().map(JobRun.Result::eventsPerSecond).toList());
    }

    /** Median over the runs whose last checkpoint could be read; NaN if none. */
    double medianCheckpointBytes(Variant variant) {
        List<Double> readable = throughput.get(variant).stream().filter(r -> r.checkpointBytes() >= 0)
                .map(r -> (double) r.checkpointBytes()).toList();
        return readable.isEmpty() ? Double.NaN : median(readable);
    }

    double stateBytesPerUnique(Variant variant) {
        return medianCheckpointBytes(variant) / workload.uniqueImpressions();
    }

    boolean has(Variant variant) {
        return throughput != null && throughput.containsKey(variant);
    }
}
