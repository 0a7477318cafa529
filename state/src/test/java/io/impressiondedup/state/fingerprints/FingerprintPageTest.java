package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.TestElements;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated // measures a thread's allocation after JIT warm-up
class FingerprintPageTest {

    /** Small pages (one shard, 4 pages) so each section holds hundreds of values. */
    private static final FingerprintStoreSizing SIZING = new FingerprintStoreSizing(2_000, 0.001, 5, 4);

    private static FingerprintPage[] filled(long[][] keys, long firstBucket, int buckets) {
        FingerprintPage[] pages = new FingerprintPage[SIZING.pages()];
        for (int p = 0; p < pages.length; p++) {
            pages[p] = new FingerprintPage();
        }
        long[] held = new long[buckets];
        for (int i = 0; i < keys[0].length; i++) {
            int b = i % buckets;
            if (pages[SIZING.pageOf(keys[0][i])].insert(firstBucket + b, SIZING.bandFor(held[b]), keys[1][i], SIZING)) {
                held[b]++;
            }
        }
        return pages;
    }

    @Test
    void everyInsertedKeyIsFoundInItsBucket() {
        long[][] keys = new TestElements(1).next(12_000); // 3 buckets, 2x over plan: bands 0 and 1
        FingerprintPage[] pages = filled(keys, 20_000, 3);
        for (int i = 0; i < keys[0].length; i++) {
            FingerprintPage page = pages[SIZING.pageOf(keys[0][i])];
            assertThat(page.mightContain(20_000 + i % 3, keys[1][i], SIZING)).as("key %s", i).isTrue();
            assertThat(page.mightContain(20_000, 20_002, keys[1][i], SIZING)).as("key %s", i).isTrue();
        }
        assertThat(pages[0].toString()).contains("20000/0:", "20000/1:", "20002/1:");
    }

    @Test
    void removingABucketKeepsEveryKeyOfTheOthers() {
        long[][] keys = new TestElements(2).next(6_000);
        FingerprintPage[] pages = filled(keys, 7, 3);
        for (FingerprintPage page : pages) {
            assertThat(page.removeBucket(8)).isTrue();
            assertThat(page.removeBucket(8)).isFalse();
            assertThat(page.count(8)).isZero();
        }
        for (int i = 0; i < keys[0].length; i++) {
            if (i % 3 != 1) {
                assertThat(pages[SIZING.pageOf(keys[0][i])].mightContain(7 + i % 3, keys[1][i], SIZING)).as("key %s", i).isTrue();
            }
        }
    }

    @Test
    void countsAreExactDistinctValuesPerBucketAndBand() {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(5, 0, 10, 1000);
        page.insertValue(5, 0, 10, 1000);
        page.insertValue(5, 0, 999, 1000);
        page.insertValue(5, 1, 10, 50_000);
        page.insertValue(6, 0, 0, 1000);
        assertThat(page.count(5)).isEqualTo(3);
        assertThat(page.count(5, 0)).isEqualTo(2);
        assertThat(page.count(5, 1)).isEqualTo(1);
        assertThat(page.count(6)).isEqualTo(1);
        assertThat(page.count(4)).isZero();
        assertThat(page.insertValue(5, 0, 999, 1000)).isFalse();
    }

    @Test
    void aLookupConsultsOnlyTheBucketsAskedFor() {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(10, 0, 42, 1000);
        ValueRanges ranges = (bucket, band) -> 1000;
        long h2 = 42 * (Long.divideUnsigned(-1L, 1000) + 1); // scales to 42 in [0, 1000)
        assertThat(FingerprintStoreSizing.scale(h2, 1000)).isEqualTo(42);
        assertThat(page.mightContain(10, h2, ranges)).isTrue();
        assertThat(page.mightContain(9, 9, h2, ranges)).isFalse();
        assertThat(page.mightContain(11, 14, h2, ranges)).isFalse();
        assertThat(page.mightContain(8, 11, h2, ranges)).isTrue();
    }

    @Test
    void sectionsStayInBucketAndBandOrder() {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(3, 1, 1, 100);
        page.insertValue(1, 0, 1, 100);
        page.insertValue(3, 0, 1, 100);
        page.insertValue(-2, 0, 1, 100);
        assertThat(page.toString()).isEqualTo("FingerprintPage{-2/0:1, 1/0:1, 3/0:1, 3/1:1}");
        assertThatThrownBy(() -> page.insertValue(1, 18, 1, 100)).hasMessage("band must be in [0, 17], but was 18");
    }

    @Test
    void aCopySharesNothingThatAnInsertChanges() {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(1, 0, 1, 100);
        FingerprintPage copy = page.copy();
        page.insertValue(1, 0, 2, 100);
        page.insertValue(2, 0, 2, 100);
        assertThat(copy.count(1)).isEqualTo(1);
        assertThat(copy.sectionCount()).isEqualTo(1);
    }

    /**
     * A page keeps its sections' streams one after the other in one array: growing the middle section moves the
     * stream after it. The page must equal one built from sections encoded at once, and find every value.
     */
    @Test
    void insertsIntoTheMiddleSectionGiveThePageBuiltFromSectionsEncodedAtOnce() {
        long range = 1 << 20;
        SplittableRandom random = new SplittableRandom(10);
        FingerprintPage page = new FingerprintPage();
        List<TreeSet<Long>> held = List.of(new TreeSet<>(), new TreeSet<>(), new TreeSet<>());
        for (int i = 0; i < 3_000; i++) {
            int section = i < 200 ? i % 3 : 1;
            long value = random.nextLong(range);
            assertThat(page.insertValue(section, 0, value, range)).isEqualTo(held.get(section).add(value));
        }
        FingerprintPage encodedAtOnce = new FingerprintPage();
        for (int section = 2; section >= 0; section--) {
            encodedAtOnce.putSection(section, 0, EliasFanoSection.of(range, held.get(section).stream().mapToLong(Long::longValue).toArray()));
        }
        assertThat(page).isEqualTo(encodedAtOnce);
        assertThat(page.hashCode()).isEqualTo(encodedAtOnce.hashCode());
        for (int section = 0; section < 3; section++) { // h2 = value << 44 scales to value in [0, 2^20)
            assertThat(page.section(section, 0).values()).as("section %s", section)
                    .containsExactly(held.get(section).stream().mapToLong(Long::longValue).toArray());
            for (long value : held.get(section)) {
                assertThat(page.mightContain(section, section, value << 44, (b, band) -> range))
                        .as("value %s of section %s", value, section).isTrue();
            }
        }
    }

    @Test
    void aPageLookupAllocatesNothing() {
        long[][] keys = new TestElements(11).next(8_000);
        FingerprintPage[] pages = filled(keys, 0, 4);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[][] fresh = new TestElements(12).next(20_000);
        int found = 0;
        for (int round = 0; round < 20; round++) { // warm up, so the measured loop runs compiled
            found += lookUp(pages, fresh);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int round = 0; round < 10; round++) {
            found += lookUp(pages, fresh);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by 200,000 page lookups (%s found)", found).isLessThan(1024);
    }

    private static int lookUp(FingerprintPage[] pages, long[][] keys) {
        int found = 0;
        for (int i = 0; i < keys[0].length; i++) {
            found += pages[SIZING.pageOf(keys[0][i])].mightContain(0, 4, keys[1][i], SIZING) ? 1 : 0;
        }
        return found;
    }
}
