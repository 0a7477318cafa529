package io.impressiondedup.bench.parse;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.ImpressionParser;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.ImpressionGenerator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The CPU time of {@link ImpressionParser#parse} per record, on the records {@link ParseBenchmark} uses: the
 * thread's CPU time (ThreadMXBean) around passes over them, which a shared, loaded machine distorts less
 * than the wall-clock time JMH reports (a descheduled thread uses no CPU). Prints each measured pass and
 * the median and best, in nanoseconds per record.
 *
 * <p>{@code java -cp "bench/target/benchmarks.jar:$(cat bench/target/cp.txt)" io.impressiondedup.bench.parse.ParseCpuTime [passes]}
 */
public final class ParseCpuTime {

    private static final int RECORDS = 1 << 14;
    private static final int WARM_UP_PASSES = 30;

    private ParseCpuTime() {
    }

    public static void main(String[] args) {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        ImpressionParser parser = new ImpressionParser(new ParserSettings("requestId", "adId", "ts", 1 << 20, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> Long.MAX_VALUE / 2);
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(3).build());
        List<RawKafkaRecord> records = new ArrayList<>();
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            records.add(RawKafkaRecord.ofValue("impressions", 0, records.size(), record.value));
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long impressions = 0;
        double[] nanosPerRecord = new double[passes];
        for (int pass = -WARM_UP_PASSES; pass < passes; pass++) {
            long start = threads.getCurrentThreadCpuTime();
            for (RawKafkaRecord record : records) {
                if (parser.parse(record).isImpression()) {
                    impressions++;
                }
            }
            long cpu = threads.getCurrentThreadCpuTime() - start;
            if (pass >= 0) {
                nanosPerRecord[pass] = (double) cpu / records.size();
            }
        }
        double[] sorted = nanosPerRecord.clone();
        Arrays.sort(sorted);
        StringBuilder all = new StringBuilder();
        for (double n : nanosPerRecord) {
            all.append(String.format("%.0f ", n));
        }
        System.out.println("thread CPU ns per record, each pass: " + all.toString().trim());
        System.out.printf("median %.0f ns, best %.0f ns per record (%d records, %d passes; %d impressions)%n", sorted[passes / 2], sorted[0],
                records.size(), passes, impressions);
    }
}
