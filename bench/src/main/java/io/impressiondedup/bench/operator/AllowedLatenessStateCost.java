package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.util.Locale;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * What the allowed lateness costs in state, in each state format: the operator run over several days of steady
 * traffic at plan (so the retention is full), once without allowed lateness and once with each given
 * value, on the HashMap and the RocksDB backend; the live state measured as a canonical savepoint at
 * the end. Reports savepoint bytes per unique impression in the live buckets and per unique impression
 * of one day, and the live buckets the plan expects.
 *
 * <p>Usage: {@code java -Xmx6g -cp bench/target/benchmarks.jar
 * io.impressiondedup.bench.operator.AllowedLatenessStateCost [events] [days] [lateness,...] [format,...]}, e.g.
 * {@code 3000000 6 0d,1d,2d bloom,fingerprints} (formats: {@code --state-format} values; default bloom).
 */
public final class AllowedLatenessStateCost {

    private AllowedLatenessStateCost() {}

    public static void main(String[] args) throws Exception {
        ScratchTmpDir.run(() -> measure(args));
    }

    private static void measure(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        String[] latenesses = (args.length > 2 ? args[2] : "0d,1d").split(",");
        String[] formats = (args.length > 3 ? args[3] : "bloom").split(",");
        OperatorWorkload workload = new OperatorWorkload(events, 42, days);
        long perDay = workload.uniqueImpressions / days;
        System.out.printf(Locale.ROOT, "%,d events over %d days, %,d unique impressions (%,d per day = the planned capacity)%n",
                events, days, workload.uniqueImpressions, perDay);
        System.out.printf(Locale.ROOT, "%-13s %-10s %-9s %14s %12s %14s %16s %16s%n", "format", "lateness", "backend", "savepoint B",
                "live buckets", "live uniques", "B / live unique", "B / daily unique");
        for (String formatName : formats) {
            StateFormat format = StateFormat.fromOptionValue(formatName);
            for (String value : latenesses) {
                Duration lateness = org.apache.flink.util.TimeUtils.parseDuration(value);
                TimeBuckets buckets = new TimeBuckets(TimeBuckets.DEFAULT_BUCKET_SIZE, TimeBuckets.DEFAULT_RETENTION, lateness,
                        java.time.ZoneOffset.UTC);
                for (boolean rocksdb : new boolean[] {false, true}) {
                    DedupSettings settings = DedupSettings.builder()
                            .plan(DedupPlan.builder().capacityPerBucket(perDay).fpp(0.001).shards(128).timeBuckets(buckets)
                                    .pageBytes(rocksdb ? 256 : DedupPlan.DEFAULT_PAGE_BYTES).stateFormat(format).build())
                            .build();
                    OperatorThroughputBenchmark.Variant variant = new OperatorThroughputBenchmark.Variant(
                            format.optionValue() + (rocksdb ? "-rocksdb" : "-heap"),
                            () -> new DedupOperator(settings), new ShardKeySelector(128, 128), Types.INT, rocksdb, workload::digested);
                    OperatorThroughputBenchmark.Result result = variant.run(workload, 64);
                    long lastWatermark = workload.eventTimes[workload.size() - 1] - Duration.ofMinutes(5).toMillis();
                    long liveUniques = workload.uniqueImpressionsInLiveBuckets(buckets, lastWatermark);
                    System.out.printf(Locale.ROOT, "%-13s %-10s %-9s %,14d %12d %,14d %16.2f %16.2f%n", format.optionValue(), value,
                            rocksdb ? "rocksdb" : "heap",
                            result.checkpointBytes, DedupPlan.liveBuckets(buckets) - 1, liveUniques,
                            (double) result.checkpointBytes / liveUniques, (double) result.checkpointBytes / perDay);
                }
            }
        }
    }
}
