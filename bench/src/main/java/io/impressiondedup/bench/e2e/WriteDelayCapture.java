package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.io.kafka.OutputWriteDelay;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for the local cluster in the benchmark's own JVM that keeps every histogram
 * named {@link OutputWriteDelay#METRIC} (the job's output sink metric), so that the latency benchmark
 * can read the job's view next to its own at the end of a run. Loaded by Flink through {@code
 * META-INF/services}; {@link #install} names it in a job's configuration.
 */
public final class WriteDelayCapture implements MetricReporterFactory {

    private static final Map<String, Histogram> HISTOGRAMS = new ConcurrentHashMap<>();

    /** One sink subtask's histogram at the time of reading: its last samples, as the job keeps them. */
    record Snapshot(String sink, long count, int samples, double p50, double p99, long max) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s: %,d written, last %,d: p50 %,.0f ms, p99 %,.0f ms, max %,d ms", sink, count, samples, p50,
                    p99, max);
        }
    }

    /** Adds this reporter to a local cluster's configuration. */
    static void install(Configuration flink) {
        flink.setString("metrics.reporter.write-delay-capture.factory.class", WriteDelayCapture.class.getName());
    }

    static List<Snapshot> snapshots() {
        List<Snapshot> snapshots = new ArrayList<>();
        HISTOGRAMS.forEach((name, h) -> {
            HistogramStatistics s = h.getStatistics();
            snapshots.add(new Snapshot(name, h.getCount(), s.size(), s.getQuantile(0.5), s.getQuantile(0.99), s.getMax()));
        });
        snapshots.sort(java.util.Comparator.comparing(Snapshot::sink));
        return snapshots;
    }

    static void clear() {
        HISTOGRAMS.clear();
    }

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new MetricReporter() {
            @Override
            public void open(MetricConfig config) {}

            @Override
            public void close() {}

            @Override
            public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
                if (OutputWriteDelay.METRIC.equals(name) && metric instanceof Histogram histogram) {
                    Map<String, String> variables = group.getAllVariables();
                    HISTOGRAMS.put(variables.getOrDefault("<operator_name>", "?") + " #" + variables.getOrDefault("<subtask_index>", "?"),
                            histogram);
                }
            }

            @Override
            public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
        };
    }
}
