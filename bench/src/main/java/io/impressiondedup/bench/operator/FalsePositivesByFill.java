package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ImpressionSerializer;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.StateFormatForecast;
import io.impressiondedup.state.time.TimeBuckets;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The genuine impressions each state format drops, measured on the real operator, next to what {@link
 * StateFormatForecast} (the {@code plan} command's side-by-side table) computes for the same plan.
 *
 * <p>Each run drives {@link DedupOperator} through Flink's keyed harness (heap backend, 128 shards) with fresh keys
 * only: every impression has its own random 128-bit digest, so every record the operator does not emit is a false
 * positive, a genuine impression dropped. Traffic is the forecast's steady state: each day receives {@code fill x
 * capacity} impressions spread evenly over it, in event-time order, the watermark 5 minutes behind. The first R / B
 * days (2 with the defaults) fill the buckets a key consults before its own and are not counted; the next {@code
 * days} are. Deterministic: the digests come from a seeded {@link SplittableRandom}.
 *
 * <p><b>Judging agreement.</b> Given the filters' fills, the false positives of a run are a sum of independent
 * Bernoulli trials, one per fresh key, each with a chance under 0.1%: Poisson with mean mu, the computed figure, to
 * within a factor {@code 1 - p} of its variance. A measured count agrees when it lies in the central 99.9% of
 * Poisson(mu) (two-sided exact tail at least 0.0005 on each side); the output gives the interval, {@code z = (x -
 * mu) / sqrt(mu)} and the verdict, and over the rows whose mu is 10 or more (where Poisson is near normal) the sum of
 * {@code z^2}, which a model without bias keeps near the number of rows (chi-square).
 *
 * <p>Usage: {@code java -Xmx3g -cp bench/target/benchmarks.jar io.impressiondedup.bench.operator.FalsePositivesByFill
 * [capacity per day] [days counted] [fills] [variants] [fpp]}, defaults {@code 1000000 4 0.5,0.8,1,2
 * bloom,fingerprints,fingerprints-at-bloom-bytes 0.001}.
 */
public final class FalsePositivesByFill {

    static final int SHARDS = 128;
    static final long START = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli();
    private static final long WATERMARK_LAG = Duration.ofMinutes(5).toMillis();
    private static final double TAIL = 0.0005;

    private FalsePositivesByFill() {}

    public static void main(String[] args) throws Exception {
        long capacity = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int days = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        String[] fills = (args.length > 2 ? args[2] : "0.5,0.8,1,2").split(",");
        String[] variants = (args.length > 3 ? args[3] : "bloom,fingerprints,fingerprints-at-bloom-bytes").split(",");
        double fpp = args.length > 4 ? Double.parseDouble(args[4]) : DedupPlan.DEFAULT_FPP;

        DedupPlan base = DedupPlan.builder().capacityPerBucket(capacity).fpp(fpp).shards(SHARDS).build();
        double bloomBytesFpp = StateFormatForecast.fingerprintFppAtBloomBytes(base);
        System.out.printf(Locale.ROOT, "plan: %,d unique impressions a day, FPP %s, %d shards, %s; %d days counted after %d of warm-up;"
                        + " fingerprints at the Bloom format's bytes: FPP %.4g%n", capacity, fpp, SHARDS, base.timeBuckets(), days,
                warmUpDays(base), bloomBytesFpp);
        System.out.printf(Locale.ROOT, "%-40s %5s %12s %10s %12s %21s %7s %s%n", "variant", "fill", "fresh keys", "measured",
                "computed", "99.9% Poisson range", "z", "agrees");
        int disagreements = 0;
        double squaredZ = 0;
        int rowsOfTenOrMore = 0;
        for (String variant : variants) {
            StateFormat format = variant.startsWith("fingerprints") ? StateFormat.FINGERPRINTS : StateFormat.BLOOM;
            double variantFpp = variant.equals("fingerprints-at-bloom-bytes") ? bloomBytesFpp : fpp;
            if (!variant.equals("bloom") && !variant.equals("fingerprints") && !variant.equals("fingerprints-at-bloom-bytes")) {
                throw new IllegalArgumentException("unknown variant " + variant + ": bloom, fingerprints or fingerprints-at-bloom-bytes");
            }
            DedupPlan plan = DedupPlan.builder().capacityPerBucket(capacity).fpp(variantFpp).shards(SHARDS).stateFormat(format).build();
            for (String fillText : fills) {
                double fill = Double.parseDouble(fillText);
                Measurement measured = measure(plan, fill, days, seedOf(fill));
                double computed = new StateFormatForecast(plan, format).droppedPerBucket(measured.fill()) * days;
                long low = poissonQuantile(computed, TAIL);
                long high = poissonQuantile(computed, 1 - TAIL);
                boolean agrees = measured.dropped() >= low && measured.dropped() <= high;
                disagreements += agrees ? 0 : 1;
                if (computed >= 10) {
                    squaredZ += (measured.dropped() - computed) * (measured.dropped() - computed) / computed;
                    rowsOfTenOrMore++;
                }
                System.out.printf(Locale.ROOT, "%-40s %5.3f %,12d %,10d %,12.1f %21s %7.2f %s%n", variant + " (" + String.format(Locale.ROOT,
                                "%.3g", variantFpp) + ")", measured.fill(), measured.freshKeys(), measured.dropped(), computed,
                        String.format(Locale.ROOT, "[%,d, %,d]", low, high), computed > 0 ? (measured.dropped() - computed) / Math.sqrt(computed) : 0.0,
                        agrees ? "yes" : "NO");
            }
        }
        System.out.printf(Locale.ROOT, "%d of %d outside the central 99.9%% of Poisson(computed); over the %d rows computing 10 or more,"
                + " sum of z^2 = %.1f (chi-square with %d degrees of freedom: mean %d, sd %.1f)%n", disagreements,
                variants.length * fills.length, rowsOfTenOrMore, squaredZ, rowsOfTenOrMore, rowsOfTenOrMore, Math.sqrt(2.0 * rowsOfTenOrMore));
    }

    /** What a run counted on its counted days: the fill it ran at (a day's impressions over the capacity). */
    record Measurement(double fill, long freshKeys, long dropped) {}

    /** {@code R / B} rounded up: the days that fill the buckets before the first counted one. */
    static int warmUpDays(DedupPlan plan) {
        TimeBuckets buckets = plan.timeBuckets();
        return (int) Math.ceil((double) buckets.retention().toMillis() / buckets.bucketSize().toMillis());
    }

    static Measurement measure(DedupPlan plan, double fill, int countedDays, long seed) throws Exception {
        DedupSettings settings = DedupSettings.builder().plan(plan).build();
        long perDay = Math.round(fill * plan.capacityPerBucket());
        long bucketMillis = plan.timeBuckets().bucketSize().toMillis();
        int warmUp = warmUpDays(plan);
        SplittableRandom random = new SplittableRandom(seed);
        RawKafkaRecord raw = new RawKafkaRecord("impressions", 0, 0, START, null,
                "{}".getBytes(StandardCharsets.UTF_8), null, null);
        long fresh = 0;
        long emitted = 0;
        try (KeyedOneInputStreamOperatorTestHarness<Integer, Impression, Impression> harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new DedupOperator(settings), new ShardKeySelector(SHARDS, SHARDS), Types.INT, SHARDS, 1, 0)) {
            harness.setStateBackend(new HashMapStateBackend());
            harness.setup(ImpressionSerializer.INSTANCE);
            harness.open();
            for (int day = 0; day < warmUp + countedDays; day++) {
                boolean counted = day >= warmUp;
                long dayStart = START + day * bucketMillis;
                for (long i = 0; i < perDay; i++) {
                    long eventTime = dayStart + (long) ((i + 0.5) * bucketMillis / perDay);
                    Impression impression = new Impression("fresh", "ad", eventTime, random.nextLong(), random.nextLong(), raw);
                    harness.processElement(new StreamRecord<>(impression, eventTime));
                    if ((i & 0xFFF) == 0xFFF || i == perDay - 1) {
                        long out = drainRecords(harness);
                        if (counted) {
                            emitted += out;
                        }
                        harness.processWatermark(new Watermark(eventTime - WATERMARK_LAG));
                    }
                }
                if (counted) {
                    fresh += perDay;
                }
                if (harness.getSideOutput(DedupOperator.LATE) != null && !harness.getSideOutput(DedupOperator.LATE).isEmpty()) {
                    throw new IllegalStateException("records were late: the workload must be in time throughout");
                }
            }
        }
        return new Measurement((double) perDay / plan.capacityPerBucket(), fresh, fresh - emitted);
    }

    /** Records emitted since the last call (the output queue also holds watermarks), then clears it. */
    private static long drainRecords(KeyedOneInputStreamOperatorTestHarness<Integer, Impression, Impression> harness) {
        long records = 0;
        for (Object element : harness.getOutput()) {
            if (element instanceof StreamRecord) {
                records++;
            }
        }
        harness.getOutput().clear();
        return records;
    }

    /** A seed per fill, the same for every variant: the formats meet the same keys. */
    private static long seedOf(double fill) {
        return Double.doubleToLongBits(fill) * 0x9E3779B97F4A7C15L;
    }

    /** The smallest x with {@code P(X <= x) >= q} for X ~ Poisson(mu). */
    static long poissonQuantile(double mu, double q) {
        if (mu <= 0) {
            return 0;
        }
        double term = Math.exp(-mu);
        double cumulative = term;
        long x = 0;
        if (term == 0) { // far from the origin: a normal start, then exact steps in log space
            x = Math.max(0, (long) Math.floor(mu - 8 * Math.sqrt(mu)));
            double logTerm = -mu + x * Math.log(mu) - logFactorial(x);
            term = Math.exp(logTerm);
            cumulative = term; // the mass below mu - 8 sigma is under 1e-15
        }
        while (cumulative < q) {
            x++;
            term *= mu / x;
            cumulative += term;
        }
        return x;
    }

    private static double logFactorial(long n) {
        double sum = 0;
        for (long k = 2; k <= n; k++) {
            sum += Math.log(k);
        }
        return sum;
    }
}
