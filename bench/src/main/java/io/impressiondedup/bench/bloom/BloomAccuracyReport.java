package io.impressiondedup.bench.bloom;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.impressiondedup.state.bloom.BlockedBloomBitset;
import io.impressiondedup.state.bloom.BloomSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;

/**
 * Bits per key and measured FPP of the blocked bitset and of Guava's filter, same n, p and elements:
 * the space half of the comparison {@link BloomFilterBenchmark} makes for time.
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar io.impressiondedup.bench.bloom.BloomAccuracyReport
 * [n] [fpp] [queries]} (defaults 10,000,000, 0.001, 10,000,000).
 */
public final class BloomAccuracyReport {

    private BloomAccuracyReport() {}

    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        double fpp = args.length > 1 ? Double.parseDouble(args[1]) : 0.001;
        int queries = args.length > 2 ? Integer.parseInt(args[2]) : 10_000_000;

        Fingerprints present = new Fingerprints(n, 1);
        BlockedBloomBitset blocked = BlockedBloomBitset.create(n, fpp, DedupPlan.DEFAULT_PAGE_BYTES / 64);
        BloomFilter<Long> guava = BloomFilter.create(Funnels.longFunnel(), n, fpp);
        for (int i = 0; i < n; i++) {
            blocked.put(present.h1[i], present.h2[i]);
            guava.put(present.guavaKeys[i]);
        }
        int falseNegatives = 0;
        for (int i = 0; i < n; i++) {
            falseNegatives += blocked.mightContain(present.h1[i], present.h2[i]) ? 0 : 1;
            falseNegatives += guava.mightContain(present.guavaKeys[i]) ? 0 : 1;
        }
        present = null;

        Fingerprints absent = new Fingerprints(queries, 2);
        long blockedFalsePositives = 0;
        long guavaFalsePositives = 0;
        for (int i = 0; i < queries; i++) {
            blockedFalsePositives += blocked.mightContain(absent.h1[i], absent.h2[i]) ? 1 : 0;
            guavaFalsePositives += guava.mightContain(absent.guavaKeys[i]) ? 1 : 0;
        }

        double classicBitsPerKey = BloomSizing.classicBits(n, fpp) / n;
        double blockedBitsPerKey = (double) blocked.geometry().bits() / n;
        double guavaBitsPerKey = guavaBits(guava) / n;
        System.out.printf(Locale.ROOT, "n = %,d, target fpp = %s, negative queries = %,d, false negatives = %d%n", n, fpp, queries, falseNegatives);
        System.out.printf(Locale.ROOT, "%-26s %12s %14s %14s %12s%n", "filter", "bits/key", "vs classic", "measured fpp", "vs target");
        row("classic formula", classicBitsPerKey, classicBitsPerKey, Double.NaN, fpp);
        row("blocked (this project)", blockedBitsPerKey, classicBitsPerKey, (double) blockedFalsePositives / queries, fpp);
        row("Guava BloomFilter", guavaBitsPerKey, classicBitsPerKey, (double) guavaFalsePositives / queries, fpp);
        System.out.printf(Locale.ROOT, "blocked layout: %,d blocks, k = %d%n", blocked.geometry().numBlocks(), blocked.geometry().probes());
    }

    private static void row(String name, double bitsPerKey, double classic, double measured, double target) {
        System.out.printf(Locale.ROOT, "%-26s %12.2f %13.3fx %14s %12s%n", name, bitsPerKey, bitsPerKey / classic,
                Double.isNaN(measured) ? "-" : String.format(Locale.ROOT, "%.6f", measured),
                Double.isNaN(measured) ? "-" : String.format(Locale.ROOT, "%.3fx", measured / target));
    }

    /** Guava does not expose its size; its serial form is 6 header bytes plus the bit array. */
    private static double guavaBits(BloomFilter<Long> filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return (out.size() - 6) * 8.0;
    }
}
