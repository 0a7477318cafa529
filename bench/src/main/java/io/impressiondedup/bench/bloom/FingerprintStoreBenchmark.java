package io.impressiondedup.bench.bloom;

import io.impressiondedup.state.bloom.BlockedBloomBitset;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPageSerializer;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One shard's fingerprint store (pages of Elias-Fano sections, {@code state.fingerprints}) next to today's
 * per-bucket blocked Bloom filters, same plan: {@value #BUCKETS} full buckets of {@code n0} = {@value
 * #CAPACITY} unique impressions each, a lookup over {@value #CHECKED} buckets (L of the default time buckets),
 * FPP 0.001 or 0.0001, and the fingerprint store also at 4x over plan (bands 1 and 2 filled).
 *
 * <ul>
 *   <li>{@code fingerprintLookupAbsent} / {@code Present}: a fresh key / a stored key against the L buckets of
 *       its page (fresh keys are the common case: most impressions are unique).
 *   <li>{@code fingerprintInsert}: what a unique record adds, the insert into its own full band-0 section (the
 *       new section is returned, not stored, so the sections keep their plan size through the run; the sections
 *       are taken from the pages at setup, so the time is the insert's alone).
 *   <li>{@code bloomLookupAbsent}: the same fresh keys against L blocked filters sized as {@link DedupPlan}
 *       sizes a bucket's first layer ({@code p / L / 2}); {@code bloomInsert}: a put into one of them.
 *   <li>{@code pageSerialize} / {@code pageDeserialize}: one page of the store written and read by {@link
 *       FingerprintPageSerializer}, pages in turn: what a page costs each time it goes to or comes from RocksDB or the
 *       operator's off-heap tier.
 * </ul>
 *
 * Bytes per key are printed at setup: the serialized pages ({@code FingerprintPageSerializer} v1) per entry,
 * and the Bloom layers' bits per planned entry. Both stores hold about 30-40 MB, so accesses are random and
 * cache-miss-bound, as in {@link BloomFilterBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {"-Xmx3g", "-XX:+UseParallelGC"})
public class FingerprintStoreBenchmark {

    static final int CAPACITY = 500_000;
    static final int BUCKETS = 4;
    static final int CHECKED = 5;
    static final int QUERIES = 1 << 20;

    /** The store of one shard at plan (or over it), and keys to query. */
    @State(Scope.Thread)
    public static class FingerprintStore {
        @Param({"0.001", "0.0001"})
        double fpp;

        @Param({"1", "4"})
        int overPlan;

        FingerprintStoreSizing sizing;
        FingerprintPage[] pages;
        /** Bucket 0's band-0 section of each page, for {@code fingerprintInsert}. */
        EliasFanoSection[] bandZero;
        /** Each page serialized, for {@code pageDeserialize}. */
        byte[][] serialized;
        final DataOutputSerializer out = new DataOutputSerializer(4096);
        final DataInputDeserializer in = new DataInputDeserializer();
        Fingerprints stored;
        Fingerprints fresh;
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            int perBucket = overPlan * CAPACITY;
            sizing = new FingerprintStoreSizing(CAPACITY, fpp, CHECKED,
                    FingerprintStoreSizing.pagesPerShard(CAPACITY, fpp, CHECKED, BUCKETS, FingerprintStoreSizing.DEFAULT_PAGE_BYTES));
            pages = new FingerprintPage[sizing.pages()];
            for (int p = 0; p < pages.length; p++) {
                pages[p] = new FingerprintPage();
            }
            stored = new Fingerprints(BUCKETS * perBucket, 1);
            long entries = 0;
            long[] held = new long[BUCKETS];
            for (int i = 0; i < stored.h1.length; i++) {
                int bucket = i % BUCKETS;
                if (pages[sizing.pageOf(stored.h1[i])].insert(bucket, sizing.bandFor(held[bucket]), stored.h2[i], sizing)) {
                    held[bucket]++;
                    entries++;
                }
            }
            fresh = new Fingerprints(QUERIES, 2);
            bandZero = new EliasFanoSection[pages.length];
            for (int p = 0; p < pages.length; p++) {
                bandZero[p] = pages[p].section(0, 0);
            }
            serialized = new byte[pages.length][];
            for (int p = 0; p < pages.length; p++) {
                serialized[p] = serialize(pages[p]);
            }
            long bytes = 0;
            long largest = 0;
            for (FingerprintPage page : pages) {
                bytes += page.encodedBytes();
                largest = Math.max(largest, page.encodedBytes());
            }
            System.out.printf(Locale.ROOT, "%nfingerprint store, fpp %s, %dx over plan: %,d entries in %,d pages, %.2f bits (%.3f B) per entry,"
                            + " mean page %,d B, largest %,d B, U0 = %,d%n", fpp, overPlan, entries, pages.length, 8.0 * bytes / entries,
                    (double) bytes / entries, bytes / pages.length, largest, sizing.valueRange(0));
        }

        int nextIndex(int size) {
            int i = next;
            next = i + 1 == size ? 0 : i + 1;
            return i;
        }

        byte[] serialize(FingerprintPage page) {
            out.clear();
            try {
                FingerprintPageSerializer.INSTANCE.serialize(page, out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.getCopyOfBuffer();
        }
    }

    /** Today's layout for the same plan: one blocked Bloom filter per bucket, each sized for its first layer. */
    @State(Scope.Thread)
    public static class BloomStore {
        @Param({"0.001", "0.0001"})
        double fpp;

        BlockedBloomBitset[] filters;
        Fingerprints stored;
        Fingerprints fresh;
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            int blocksPerPage = DedupPlan.DEFAULT_PAGE_BYTES / 64;
            filters = new BlockedBloomBitset[CHECKED];
            for (int b = 0; b < CHECKED; b++) {
                filters[b] = BlockedBloomBitset.create(CAPACITY, ScalableBloomFilter.layerFpp(fpp / CHECKED, 0), blocksPerPage);
            }
            stored = new Fingerprints(BUCKETS * CAPACITY, 1);
            for (int i = 0; i < stored.h1.length; i++) {
                filters[i % BUCKETS].put(stored.h1[i], stored.h2[i]);
            }
            fresh = new Fingerprints(QUERIES, 2);
            long atPlan = ScalableBloomFilter.layerGeometry(CAPACITY, fpp / CHECKED, blocksPerPage, 0).bits();
            long atFour = atPlan + ScalableBloomFilter.layerGeometry(CAPACITY, fpp / CHECKED, blocksPerPage, 1).bits()
                    + ScalableBloomFilter.layerGeometry(CAPACITY, fpp / CHECKED, blocksPerPage, 2).bits();
            System.out.printf(Locale.ROOT, "%nblocked Bloom, fpp %s: %.2f bits per entry at plan (layer 0 at p/%d/2); a bucket at 4x"
                            + " over plan (layers 0-2, allocated whole): %.2f bits per entry%n", fpp,
                    (double) atPlan / CAPACITY, CHECKED, (double) atFour / (4.0 * CAPACITY));
        }

        int nextIndex(int size) {
            int i = next;
            next = i + 1 == size ? 0 : i + 1;
            return i;
        }
    }

    @Benchmark
    public boolean fingerprintLookupAbsent(FingerprintStore s) {
        int i = s.nextIndex(QUERIES);
        return s.pages[s.sizing.pageOf(s.fresh.h1[i])].mightContain(0, CHECKED - 1, s.fresh.h2[i], s.sizing);
    }

    @Benchmark
    public boolean fingerprintLookupPresent(FingerprintStore s) {
        int i = s.nextIndex(s.stored.h1.length);
        return s.pages[s.sizing.pageOf(s.stored.h1[i])].mightContain(0, CHECKED - 1, s.stored.h2[i], s.sizing);
    }

    @Benchmark
    public EliasFanoSection fingerprintInsert(FingerprintStore s) {
        int i = s.nextIndex(QUERIES);
        long range = s.sizing.valueRange(0);
        return s.bandZero[s.sizing.pageOf(s.fresh.h1[i])].with(FingerprintStoreSizing.scale(s.fresh.h2[i], range), range);
    }

    @Benchmark
    public boolean bloomLookupAbsent(BloomStore s) {
        int i = s.nextIndex(QUERIES);
        long h1 = s.fresh.h1[i];
        long h2 = s.fresh.h2[i];
        boolean any = false;
        for (BlockedBloomBitset filter : s.filters) {
            any |= filter.mightContain(h1, h2);
        }
        return any;
    }

    @Benchmark
    public boolean bloomInsert(BloomStore s) {
        int i = s.nextIndex(s.stored.h1.length);
        return s.filters[i % BUCKETS].put(s.stored.h1[i], s.stored.h2[i]);
    }

    @Benchmark
    public int pageSerialize(FingerprintStore s) throws IOException {
        s.out.clear();
        FingerprintPageSerializer.INSTANCE.serialize(s.pages[s.nextIndex(s.pages.length)], s.out);
        return s.out.length();
    }

    @Benchmark
    public FingerprintPage pageDeserialize(FingerprintStore s) throws IOException {
        byte[] bytes = s.serialized[s.nextIndex(s.serialized.length)];
        s.in.setBuffer(bytes, 0, bytes.length);
        return FingerprintPageSerializer.INSTANCE.deserialize(s.in);
    }
}
