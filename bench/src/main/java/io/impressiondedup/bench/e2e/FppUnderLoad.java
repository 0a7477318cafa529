package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.bloom.Fingerprints;
import io.impressiondedup.state.bloom.BlockedBloomBitset;
import io.impressiondedup.state.bloom.HeapBloomPages;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The false-positive rate of a filter planned for {@code capacity} impressions at FPP {@code p}
 * when traffic runs over plan: ours, which adds layers as it fills, against a fixed-size filter of
 * the same plan. Distinct impressions are inserted up to 4x the plan; at each load the rate is
 * measured two ways: the share of the distinct impressions inserted so far that were wrongly taken
 * for duplicates (what the job drops), and the FPP at that moment (absent impressions queried).
 */
final class FppUnderLoad {

    record Point(double load, double scalableDropped, double scalableFpp, double scalableBitsPerKey,
            double fixedDropped, double fixedFpp, double fixedBitsPerKey) {}

    private FppUnderLoad() {}

    static List<Point> run(int capacity, double fpp, double[] loads, int queries) {
        int blocksPerPage = DedupPlan.DEFAULT_PAGE_BYTES / 64;
        ScalableBloomFilter scalable = ScalableBloomFilter.create(
                FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS), capacity, fpp, blocksPerPage);
        HeapBloomPages pages = new HeapBloomPages();
        BlockedBloomBitset fixed = BlockedBloomBitset.create(capacity, fpp, blocksPerPage);

        int maxInserts = (int) Math.ceil(loads[loads.length - 1] * capacity);
        Fingerprints present = new Fingerprints(maxInserts, 11);
        Fingerprints absent = new Fingerprints(queries, 12);
        List<Point> points = new ArrayList<>();
        long scalableDropped = 0;
        long fixedDropped = 0;
        int inserted = 0;
        for (double load : loads) {
            int target = (int) Math.round(load * capacity);
            for (; inserted < target; inserted++) {
                scalableDropped += scalable.putIfAbsent(present.h1[inserted], present.h2[inserted], pages) ? 0 : 1;
                fixedDropped += fixed.put(present.h1[inserted], present.h2[inserted]) ? 0 : 1;
            }
            long scalableHits = 0;
            long fixedHits = 0;
            for (int q = 0; q < queries; q++) {
                scalableHits += scalable.mightContain(absent.h1[q], absent.h2[q], pages) ? 1 : 0;
                fixedHits += fixed.mightContain(absent.h1[q], absent.h2[q]) ? 1 : 0;
            }
            Point point = new Point(load, (double) scalableDropped / inserted, (double) scalableHits / queries,
                    scalable.bytes() * 8.0 / inserted, (double) fixedDropped / inserted, (double) fixedHits / queries,
                    fixed.geometry().bits() / (double) inserted);
            points.add(point);
            System.out.printf(Locale.ROOT, "  load %.1fx: scalable dropped %.6f, FPP %.6f (%d layers, %.1f bits/key); fixed dropped %.6f, FPP %.6f%n",
                    load, point.scalableDropped(), point.scalableFpp(), scalable.layerCount(), point.scalableBitsPerKey(),
                    point.fixedDropped(), point.fixedFpp());
        }
        return points;
    }
}
