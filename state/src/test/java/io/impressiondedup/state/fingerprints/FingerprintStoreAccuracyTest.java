package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.TestElements;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.FalsePositiveBound;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint store's promise measured on one shard: fresh keys (real fingerprints of random request ids)
 * against L full buckets, at plan and 4x over it, and the bytes a key costs.
 *
 * <p>The expected count of false positives is computed here from the design, not read from {@link
 * FingerprintStoreSizing}: a bucket holding N entries of a plan of n0 risks {@code min(N, n0) / n0 (1 - rho) p /
 * L} from band 0 and, for each band i >= 1, its fill fraction times {@code rho p / L 2^-i}. A sizing that
 * answered falsely more often (a U that is too small) exceeds the Chernoff limit of that expectation.
 */
class FingerprintStoreAccuracyTest {

    private static final double P = 0.001;
    private static final int L = 5;
    private static final long N0 = 10_000;
    private static final int QUERIES = 600_000;

    /** One shard of the store, as the operator will drive it: the band from the shard-bucket's count. */
    private static final class Shard {
        final FingerprintStoreSizing sizing;
        final FingerprintPage[] pages;
        final long[] held;

        Shard(FingerprintStoreSizing sizing, int buckets) {
            this.sizing = sizing;
            this.pages = new FingerprintPage[sizing.pages()];
            for (int p = 0; p < pages.length; p++) {
                pages[p] = new FingerprintPage();
            }
            this.held = new long[buckets];
        }

        void fill(TestElements elements, long perBucket) {
            for (int b = 0; b < held.length; b++) {
                while (held[b] < perBucket) {
                    long[] h = elements.next();
                    FingerprintPage page = pages[sizing.pageOf(h[0])];
                    if (!page.mightContain(b, h[1], sizing) && page.insert(b, sizing.bandFor(held[b]), h[1], sizing)) {
                        held[b]++;
                    }
                }
            }
        }

        long falsePositives(TestElements fresh, int queries) {
            long matches = 0;
            for (int i = 0; i < queries; i++) {
                long[] h = fresh.next();
                matches += pages[sizing.pageOf(h[0])].mightContain(0, held.length - 1, h[1], sizing) ? 1 : 0;
            }
            return matches;
        }

        /** Fresh keys (uniform hashes) that match a section of band {@code minBand} or above. */
        long overPlanFalsePositives(java.util.SplittableRandom random, int queries, int minBand) {
            long matches = 0;
            for (int q = 0; q < queries; q++) {
                long h1 = random.nextLong();
                long h2 = random.nextLong();
                FingerprintPage page = pages[sizing.pageOf(h1)];
                for (int i = 0; i < page.sectionCount(); i++) {
                    int band = page.bandAt(i);
                    if (band >= minBand && page.sectionAt(i).contains(FingerprintStoreSizing.scale(h2, sizing.valueRange(band)))) {
                        matches++;
                        break;
                    }
                }
            }
            return matches;
        }

        /** Bits of the sections' streams of bucket {@code bucket}, headers aside. */
        long streamBits(int bucket) {
            long bits = 0;
            for (FingerprintPage page : pages) {
                for (int i = 0; i < page.sectionCount(); i++) {
                    bits += page.bucketAt(i) == bucket ? page.encodedBitsAt(i) : 0;
                }
            }
            return bits;
        }

        long bytes() {
            long bytes = 0;
            for (FingerprintPage page : pages) {
                bytes += FingerprintPageSerializer.serializedSize(page);
            }
            return bytes;
        }
    }

    /** The design's risk of one bucket holding {@code held} entries (class comment), restated on purpose. */
    private static double promisedBucketRisk(long held) {
        double risk = Math.min(held, N0) / (double) N0 * 0.9 * P / L;
        for (int band = 1; held > N0 << (band - 1); band++) {
            long inBand = Math.min(held - (N0 << (band - 1)), N0 << (band - 1));
            risk += inBand / (double) (N0 << (band - 1)) * 0.1 * P / L * Math.pow(2, -band);
        }
        return risk;
    }

    private static void assertWithinTheAccounting(long overPlan, long seed) {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(N0, P, L, FingerprintStoreSizing.pagesPerShard(N0, P, L, 4, 1024));
        Shard shard = new Shard(sizing, L);
        shard.fill(new TestElements(seed), overPlan * N0);
        long observed = shard.falsePositives(new TestElements(seed + 1000), QUERIES);
        double mu = QUERIES * L * promisedBucketRisk(overPlan * N0);
        long limit = FalsePositiveBound.limit(mu, FalsePositiveBound.TAIL_PROBABILITY);
        String line = String.format(Locale.ROOT, "%dx over plan: %d false positives among %,d fresh keys against %d full buckets"
                + " (rate %.2e, p = %s); the accounting expects %.1f, allows %d", overPlan, observed, QUERIES, L,
                (double) observed / QUERIES, P, mu, limit);
        System.out.println(line);
        assertThat(mu).as("the promise itself stays under p").isLessThanOrEqualTo(P * QUERIES);
        assertThat(observed).as(line).isLessThanOrEqualTo(limit);
    }

    @Test
    void freshKeysMatchNoMoreOftenThanTheAccountingAllowsAtPlan() {
        assertWithinTheAccounting(1, 11);
    }

    @Test
    void freshKeysMatchNoMoreOftenThanTheAccountingAllowsAtFourTimesThePlan() {
        assertWithinTheAccounting(4, 12);
    }

    /** The over-plan bands alone: at 4x, bands 1 and 2 are full and may take {@code rho (1/2 + 1/4)} of each bucket's share. */
    @Test
    void theOverPlanBandsMatchNoMoreOftenThanTheirReserveAllows() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(N0, P, L, FingerprintStoreSizing.pagesPerShard(N0, P, L, 4, 1024));
        Shard shard = new Shard(sizing, L);
        shard.fill(new TestElements(13), 4 * N0);
        int queries = 3_000_000;
        long observed = shard.overPlanFalsePositives(new java.util.SplittableRandom(14), queries, 1);
        double mu = queries * L * 0.1 * P / L * (0.5 + 0.25);
        long limit = FalsePositiveBound.limit(mu, FalsePositiveBound.TAIL_PROBABILITY);
        String line = String.format(Locale.ROOT, "bands 1-2 at 4x over plan: %d false positives among %,d fresh keys; the accounting"
                + " expects %.1f, allows %d", observed, queries, mu, limit);
        System.out.println(line);
        assertThat(observed).as(line).isLessThanOrEqualTo(limit);
    }

    /** STATE-FOOTPRINT.md section 4 computes about 14.45 bits of Elias-Fano per entry plus about 2% of headers: 14.5-15. */
    @Test
    void aKeyAtPlanCostsAboutFifteenBitsAtFppOneInAThousand() {
        DedupPlan plan = FingerprintStoreSizingTest.BENCH_PLAN;
        FingerprintStoreSizing sizing = FingerprintStoreSizing.forPlan(plan);
        Shard shard = new Shard(sizing, 4); // the end of a day: four full buckets
        shard.fill(new TestElements(21), plan.expectedPerShard());
        long entries = 4 * plan.expectedPerShard();
        double bitsPerEntry = 8.0 * shard.bytes() / entries;
        double log2RangeOverCount = Math.log((double) sizing.valueRange(0) * sizing.pages() / plan.expectedPerShard()) / Math.log(2);
        System.out.printf(Locale.ROOT, "bench plan: %d pages, U0 = %d, U/c = %.0f (log2 %.2f), %.2f bits per entry, largest page %d B%n",
                sizing.pages(), sizing.valueRange(0), Math.pow(2, log2RangeOverCount), log2RangeOverCount, bitsPerEntry,
                java.util.Arrays.stream(shard.pages).mapToLong(FingerprintPage::encodedBytes).max().orElse(0));
        assertThat(bitsPerEntry).isBetween(log2RangeOverCount + 1.5, 15.0);
    }

    /** {@link FingerprintStoreSizing#expectedBits}, the state per impression the plan command prints, against a filled store. */
    @Test
    void theExpectedBitsOfABucketAreWhatItsSectionsTake() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(N0, P, L, FingerprintStoreSizing.pagesPerShard(N0, P, L, 4, 1024));
        for (long held : new long[] {N0 / 2, N0, 4 * N0}) {
            Shard shard = new Shard(sizing, 1);
            shard.fill(new TestElements(40 + held), held);
            double measured = shard.streamBits(0);
            System.out.printf(Locale.ROOT, "%,d entries: %.3f bits per entry measured, %.3f expected%n", held, measured / held,
                    sizing.expectedBits(held, 0) / held);
            assertThat(sizing.expectedBits(held, 0)).as("%s entries", held).isCloseTo(measured, org.assertj.core.api.Assertions.withinPercentage(0.5));
        }
    }
}
