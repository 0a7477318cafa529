package io.impressiondedup.bench.parse;

import io.impressiondedup.job.io.parsing.RecordParser;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The CPU time of {@link RecordParser#parse} per record, on the records {@link ParseBenchmark} uses: the
 * thread's CPU time (ThreadMXBean) around passes over them, which a shared, loaded machine distorts less
 * than the wall-clock time JMH reports (a descheduled thread uses no CPU). Prints each measured pass and
 * the median and best, in nanoseconds per record.
 *
 * <p>{@code java -cp "bench/target/benchmarks.jar:$(cat bench/target/cp.txt)" io.impressiondedup.bench.parse.ParseCpuTime [passes [shape...]]}
 * (shapes: {@link InputShape}, all by default, measured in turn in one JVM, then round robin, so load hits them alike).
 */
public final class ParseCpuTime {

    private static final int RECORDS = 1 << 14;
    private static final int WARM_UP_PASSES = 30;

    private ParseCpuTime() {
    }

    public static void main(String[] args) {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        List<InputShape> shapes = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            shapes.add(InputShape.valueOf(args[i]));
        }
        if (shapes.isEmpty()) {
            shapes.addAll(List.of(InputShape.values()));
        }
        int n = shapes.size();
        RecordParser[] parsers = new RecordParser[n];
        RawKafkaRecord[][] records = new RawKafkaRecord[n][];
        for (int s = 0; s < n; s++) {
            parsers[s] = shapes.get(s).parser();
            records[s] = shapes.get(s).records(RECORDS);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] impressions = new long[n];
        double[][] nanosPerRecord = new double[n][passes];
        // Round robin: one pass of each shape in turn, so a burst of load on the shared machine hits all of them.
        for (int pass = -WARM_UP_PASSES; pass < passes; pass++) {
            for (int s = 0; s < n; s++) {
                long start = threads.getCurrentThreadCpuTime();
                for (RawKafkaRecord record : records[s]) {
                    if (parsers[s].parse(record).isImpression()) {
                        impressions[s]++;
                    }
                }
                long cpu = threads.getCurrentThreadCpuTime() - start;
                if (pass >= 0) {
                    nanosPerRecord[s][pass] = (double) cpu / records[s].length;
                }
            }
        }
        double baseline = median(nanosPerRecord[0]);
        for (int s = 0; s < n; s++) {
            double[] sorted = nanosPerRecord[s].clone();
            Arrays.sort(sorted);
            double median = median(nanosPerRecord[s]);
            System.out.printf("%-22s median %5.0f ns (%,.0f records/s), best %5.0f ns per record, %.2fx %s (%d records, %d passes; %d impressions)%n",
                    shapes.get(s), median, 1e9 / median, sorted[0], median / baseline, shapes.get(0), records[s].length, passes,
                    impressions[s] / (passes + WARM_UP_PASSES));
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
