package io.impressiondedup.bench.parse;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;

/**
 * The CPU time per record of each input format's source work ({@link ParseVariants}: {@code json}, {@code avro},
 * {@code avro-library}), on the records {@link ParseBenchmark} uses: the thread's CPU time (ThreadMXBean) around
 * passes over them, which a shared, loaded machine distorts less than the wall-clock time JMH reports (a descheduled
 * thread uses no CPU). The variants' passes alternate in one JVM, so load hits them alike. Prints each variant's
 * passes, its median and best in nanoseconds per record, records per second of one core at the median, and the
 * ratio of medians to {@code json}.
 *
 * <p>{@code java -cp "bench/target/benchmarks.jar:$(cat bench/target/cp.txt)" io.impressiondedup.bench.parse.ParseCpuTime [passes] [variants]}
 */
public final class ParseCpuTime {

    private static final int WARM_UP_PASSES = 30;

    private ParseCpuTime() {
    }

    public static void main(String[] args) {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        List<String> names = args.length > 1 ? List.of(args[1].split(",")) : ParseVariants.ALL;
        ParseVariants variants = new ParseVariants();
        System.out.printf("%d records: JSON %d bytes on average, Avro (with the 5-byte prefix) %d%n", ParseVariants.RECORDS,
                variants.jsonBytes / ParseVariants.RECORDS, variants.avroBytes / ParseVariants.RECORDS);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[][] nanosPerRecord = new double[names.size()][passes];
        long[] impressions = new long[names.size()];
        for (int pass = -WARM_UP_PASSES; pass < passes; pass++) {
            for (int v = 0; v < names.size(); v++) {
                String variant = names.get(v);
                long start = threads.getCurrentThreadCpuTime();
                long found = 0;
                for (int i = 0; i < ParseVariants.RECORDS; i++) {
                    found += variants.run(variant, i);
                }
                long cpu = threads.getCurrentThreadCpuTime() - start;
                if (pass >= 0) {
                    nanosPerRecord[v][pass] = (double) cpu / ParseVariants.RECORDS;
                    impressions[v] = found;
                }
            }
        }
        double jsonMedian = Double.NaN;
        for (int v = 0; v < names.size(); v++) {
            double[] sorted = nanosPerRecord[v].clone();
            Arrays.sort(sorted);
            double median = sorted[passes / 2];
            if (names.get(v).equals("json")) {
                jsonMedian = median;
            }
            StringBuilder all = new StringBuilder();
            for (double n : nanosPerRecord[v]) {
                all.append(String.format("%.0f ", n));
            }
            System.out.println(names.get(v) + ": thread CPU ns per record, each pass: " + all.toString().trim());
            System.out.printf("%s: median %.0f ns, best %.0f ns per record, %,.0f records/s at the median, %.2fx json's median"
                    + " (%d records, %d passes; %d impressions)%n", names.get(v), median, sorted[0], 1e9 / median, median / jsonMedian,
                    ParseVariants.RECORDS, passes, impressions[v]);
        }
    }
}
