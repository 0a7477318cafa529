package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.stats.RecordOutcome;
import io.impressiondedup.operators.stats.StatsClassifier;
import io.impressiondedup.operators.stats.StatsOutcome;
import io.impressiondedup.operators.stats.StatsPartial;
import io.impressiondedup.operators.stats.StatsPreAggregator;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

/**
 * What {@code --stats-topic} adds per record on the dedup side, measured apart from the noise of an
 * end-to-end run: a {@link RecordOutcome} built (the dedup operator's part) and counted by the
 * chained {@link StatsPreAggregator} (one Flink harness, one core), on a stream like the job's: 4
 * partitions, event time advancing 2 days, 1% of records up to 20 h late, a watermark every 1,000
 * records. Compare with the dedup operator's own time per record (OperatorThroughputBenchmark).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.impressiondedup.bench.operator.StatsPreAggregatorCost [records] [runs]</pre>
 */
public final class StatsPreAggregatorCost {

    private StatsPreAggregatorCost() {}

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long start = 1_795_392_000_000L; // 2026-11-23T00:00:00Z
        long step = 2 * 86_400_000L / records;
        SplittableRandom random = new SplittableRandom(7);
        long[] times = new long[records];
        int[] partitions = new int[records];
        StatsOutcome[] outcomes = new StatsOutcome[records];
        for (int i = 0; i < records; i++) {
            long t = start + i * step;
            times[i] = random.nextInt(100) == 0 ? t - random.nextLong(20 * 3_600_000L) : t;
            partitions[i] = random.nextInt(4);
            int o = random.nextInt(100);
            outcomes[i] = o < 78 ? StatsOutcome.UNIQUE : o < 98 ? StatsOutcome.DUPLICATE : StatsOutcome.LATE;
        }
        double[] nanosPerRecord = new double[runs];
        for (int run = 0; run < runs; run++) {
            try (OneInputStreamOperatorTestHarness<RecordOutcome, StatsPartial> h = new OneInputStreamOperatorTestHarness<>(
                    new StatsPreAggregator<>(StatsClassifier.outcomes(), 0))) {
                h.open();
                long began = System.nanoTime();
                for (int i = 0; i < records; i++) {
                    h.processElement(new StreamRecord<>(new RecordOutcome("impressions", partitions[i], times[i], outcomes[i]), times[i]));
                    if (i % 1000 == 999) {
                        h.processWatermark(new Watermark(start + i * step - 60_000L));
                        h.getOutput().clear();
                    }
                }
                nanosPerRecord[run] = (System.nanoTime() - began) / (double) records;
            }
            System.out.printf(Locale.ROOT, "run %d: %.1f ns per record%n", run + 1, nanosPerRecord[run]);
        }
        Arrays.sort(nanosPerRecord);
        System.out.printf(Locale.ROOT, "%,d records, %d runs: median %.1f ns per record (best %.1f)%n", records, runs,
                nanosPerRecord[runs / 2], nanosPerRecord[0]);
    }
}
