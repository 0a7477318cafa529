package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.util.BitSet;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated // measures a thread's allocation after JIT warm-up
class EliasFanoSectionTest {

    private static long[] distinctSorted(long range, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        TreeSet<Long> values = new TreeSet<>();
        while (values.size() < count) {
            values.add(random.nextLong(range));
        }
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void aSectionOfOneValueHoldsThatValueAndNoOther() {
        EliasFanoSection section = EliasFanoSection.of(1000, 417);
        assertThat(section.count()).isEqualTo(1);
        assertThat(section.contains(417)).isTrue();
        for (long v = 0; v < 1000; v++) {
            assertThat(section.contains(v)).as("value %s", v).isEqualTo(v == 417);
        }
    }

    @Test
    void theEdgeValuesZeroAndTheLastOfTheRangeAreFound() {
        long range = 1L << 40;
        EliasFanoSection section = EliasFanoSection.of(range, new long[] {0, 12345, range - 1});
        assertThat(section.contains(0)).isTrue();
        assertThat(section.contains(range - 1)).isTrue();
        assertThat(section.contains(1)).isFalse();
        assertThat(section.contains(range - 2)).isFalse();
        assertThat(section.contains(range)).isFalse();
        assertThat(section.contains(-1)).isFalse();
        assertThat(section.lastValue()).isEqualTo(range - 1);
        assertThat(EliasFanoSection.of(7, 6).with(0, 7).values()).containsExactly(0, 6);
    }

    @Test
    void aSectionOfThousandsAnswersExactlyForEveryValueOfItsRange() {
        long range = 300_000;
        long[] values = distinctSorted(range, 5_000, 1);
        EliasFanoSection section = EliasFanoSection.of(range, values);
        assertAnswersExactly(section, values, range);
        assertThat(section.values()).containsExactly(values);
        assertThat(section.count()).isEqualTo(5_000);
    }

    @Test
    void denseSectionsWithoutLowBitsAnswerExactly() {
        long[] values = distinctSorted(100, 70, 2);
        EliasFanoSection section = EliasFanoSection.of(100, values);
        assertThat(section.lowBits()).isZero();
        for (long v = 0; v < 100; v++) {
            assertThat(section.contains(v)).as("value %s", v).isEqualTo(java.util.Arrays.binarySearch(values, v) >= 0);
        }
    }

    @Test
    void insertingOneByOneGivesTheSectionEncodedAtOnce() {
        long range = 1_000_000;
        long[] values = distinctSorted(range, 800, 3);
        long[] shuffled = values.clone();
        SplittableRandom random = new SplittableRandom(4);
        for (int i = shuffled.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = t;
        }
        EliasFanoSection section = EliasFanoSection.of(range, shuffled[0]);
        for (int i = 1; i < shuffled.length; i++) {
            section = section.with(shuffled[i], range);
            assertThat(section.count()).isEqualTo(i + 1);
        }
        assertThat(section).isEqualTo(EliasFanoSection.of(range, values));
    }

    @Test
    void insertingAValueAlreadyHeldReturnsTheSameSection() {
        EliasFanoSection section = EliasFanoSection.of(1000, new long[] {3, 500});
        assertThat(section.with(500, 1000)).isSameAs(section);
    }

    @Test
    void theLowPartsAreFloorLog2OfRangeOverCountBits() {
        assertThat(EliasFanoSection.lowBitsFor(5952 * 130L, 130)).isEqualTo(12);
        assertThat(EliasFanoSection.lowBitsFor(8192, 1)).isEqualTo(13);
        assertThat(EliasFanoSection.lowBitsFor(8191, 1)).isEqualTo(12);
        assertThat(EliasFanoSection.lowBitsFor(10, 6)).isZero();
        assertThatThrownBy(() -> EliasFanoSection.lowBitsFor(10, 11)).hasMessage("count must be in [1, 10], but was 11");
    }

    /** Elias-Fano: H = (last >>> l) + c < 3c and c l low bits, so under log2(U/c) + 3 bits a value; about + 2 for random values. */
    @Test
    void theEncodingTakesAboutTwoBitsAboveLog2RangeOverCountPerValue() {
        long range = 5952 * 130L;
        EliasFanoSection section = EliasFanoSection.of(range, distinctSorted(range, 130, 5));
        double bitsPerValue = (double) section.encodedBits() / 130;
        double log2 = Math.log(5952) / Math.log(2);
        assertThat(bitsPerValue).isBetween(log2 + 1.5, log2 + 2.5);
        assertThat(section.encodedBits()).isEqualTo(section.highBits() + 130L * 12);
    }

    @Test
    void aValueOutsideTheRangeIsRefusedNamingIt() {
        assertThatThrownBy(() -> EliasFanoSection.of(100, 7).with(100, 100)).hasMessage("value 100 is outside [0, 100)");
        assertThatThrownBy(() -> EliasFanoSection.of(100, new long[] {5, 5})).hasMessage(
                "values must be strictly increasing, but 5 follows 5");
    }

    /**
     * A restored stream is checked for strictly increasing values where two ones are adjacent (equal high parts), also across
     * a word boundary: ones at bits 63 and 64 without low bits are the value 63 twice.
     */
    @Test
    void aRestoredStreamWithEqualValuesAcrossAWordBoundaryIsRefused() {
        assertThatThrownBy(() -> EliasFanoSection.restore(2, 0, 65, new long[] {1L << 63, 1L}))
                .hasMessage("values must be strictly increasing, but value 1 is 63 after 63");
        EliasFanoSection apart = EliasFanoSection.restore(2, 0, 66, new long[] {1L << 63, 2L}); // 63, then 64
        assertThat(apart.contains(63)).isTrue();
        assertThat(apart.contains(64)).isTrue();
    }

    @Test
    void aLookupAllocatesNothing() {
        long range = 1L << 30;
        EliasFanoSection section = EliasFanoSection.of(range, distinctSorted(range, 600, 6));
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SplittableRandom random = new SplittableRandom(7);
        int found = 0;
        for (int i = 0; i < 200_000; i++) { // warm up, so the measured loop runs compiled
            found += section.contains(random.nextLong(range)) ? 1 : 0;
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 200_000; i++) {
            found += section.contains(random.nextLong(range)) ? 1 : 0;
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by 200,000 lookups (%s found)", found).isLessThan(1024);
    }

    /**
     * 700 random values into {@code [0, 2^20)} one at a time: l falls from 20 to 10, so most inserts splice (l
     * kept) and a few re-encode; the high vector and the low parts cross many word boundaries.
     */
    @Test
    void everyInsertGivesTheSectionEncodedAtOnceWhetherSplicedOrReencoded() {
        long range = 1 << 20;
        SplittableRandom random = new SplittableRandom(8);
        TreeSet<Long> held = new TreeSet<>();
        long first = random.nextLong(range);
        held.add(first);
        EliasFanoSection section = EliasFanoSection.of(range, first);
        int spliced = 0;
        int reencoded = 0;
        while (held.size() < 700) {
            long value = random.nextLong(range);
            EliasFanoSection after = section.with(value, range);
            if (!held.add(value)) {
                assertThat(after).isSameAs(section);
                continue;
            }
            if (after.lowBits() == section.lowBits()) {
                spliced++;
            } else {
                reencoded++;
            }
            assertThat(after).as("after inserting %s into %s values", value, held.size() - 1)
                    .isEqualTo(EliasFanoSection.of(range, held.stream().mapToLong(Long::longValue).toArray()));
            section = after;
        }
        assertThat(spliced).isGreaterThan(600);
        assertThat(reencoded).isEqualTo(20 - 10);
    }

    @Test
    void anInsertBeforeTheFirstValueAndPastTheLastHighPartSplices() {
        long range = 1 << 16;
        EliasFanoSection section = EliasFanoSection.of(range, new long[] {300, 301, 4_000, 9_000, 20_000});
        assertThat(section.lowBits()).isEqualTo(EliasFanoSection.lowBitsFor(range, 6)).isEqualTo(13); // kept: a splice
        assertThat(section.with(0, range)).isEqualTo(EliasFanoSection.of(range, new long[] {0, 300, 301, 4_000, 9_000, 20_000}));
        assertThat(section.with(302, range)).isEqualTo(EliasFanoSection.of(range, new long[] {300, 301, 302, 4_000, 9_000, 20_000}));
        // high part 7 against the last one's 2: the new one lands 5 zeros past the vector's end
        assertThat(section.with(range - 1, range)).isEqualTo(
                EliasFanoSection.of(range, new long[] {300, 301, 4_000, 9_000, 20_000, range - 1}));
    }

    /**
     * Values in two clusters at the ends of the range leave whole words of the high vector without a one: a
     * lookup past them must count their zeros word by word and still find the values after them.
     */
    @Test
    void aLookupSelectsAcrossWordsThatHoldNoValue() {
        long range = 100_000;
        SplittableRandom random = new SplittableRandom(9);
        TreeSet<Long> clusters = new TreeSet<>();
        while (clusters.size() < 100) {
            clusters.add(clusters.size() < 50 ? random.nextLong(5_000) : 95_000 + random.nextLong(5_000));
        }
        long[] values = clusters.stream().mapToLong(Long::longValue).toArray();
        EliasFanoSection section = EliasFanoSection.of(range, values);
        assertThat(section.lowBits()).isEqualTo(9);
        assertThat(section.highBits()).isGreaterThan(3 * 64);
        assertThat(section.words()[1]).as("high word 1").isZero();
        assertThat(section.words()[2]).as("high word 2").isZero();
        assertAnswersExactly(section, values, range);
    }

    @Test
    void selectInAWordFindsTheOneOfEachRank() {
        SplittableRandom random = new SplittableRandom(13);
        long[] words = new long[1_000];
        words[0] = -1L;
        words[1] = 1L << 63;
        words[2] = 1L;
        words[3] = 0x8000_0000_0000_0001L;
        for (int i = 4; i < words.length; i++) {
            long word = random.nextLong();
            words[i] = i % 3 == 0 ? word & random.nextLong() & random.nextLong() : word; // sparse words too
        }
        for (long word : words) {
            long rest = word;
            for (int rank = 0; rest != 0; rank++, rest &= rest - 1) {
                assertThat(EliasFanoSection.selectInWord(word, rank)).as("rank %s in %s", rank, Long.toBinaryString(word))
                        .isEqualTo(Long.numberOfTrailingZeros(rest));
            }
        }
    }

    /** Checks {@code contains} against the set {@code values} for every value of {@code [0, range)}. */
    private static void assertAnswersExactly(EliasFanoSection section, long[] values, long range) {
        BitSet expected = new BitSet();
        for (long v : values) {
            expected.set((int) v);
        }
        for (int v = 0; v < range; v++) {
            if (section.contains(v) != expected.get(v)) {
                throw new AssertionError("value " + v + ": contains says " + section.contains(v));
            }
        }
    }

    /** The class comment's expected size, against sections of uniform values: at a power of two, at its least, near the next. */
    @Test
    void theExpectedSizeIsTheMeanSizeOfSectionsOfUniformValues() {
        int count = 140;
        for (double ratio : new double[] {4096, 4096 * 1.4427, 4096 * 1.99, 5556, 3.5}) {
            long range = (long) (ratio * count);
            long bits = 0;
            int sections = 400;
            for (int s = 0; s < sections; s++) {
                bits += EliasFanoSection.of(range, distinctSorted(range, count, 100 + s)).encodedBits();
            }
            double measured = (double) bits / sections;
            assertThat(EliasFanoSection.expectedBits(range, count)).as("U/c = %s: measured %s bits", ratio, measured)
                    .isCloseTo(measured, org.assertj.core.api.Assertions.within(1.0));
        }
        assertThat(EliasFanoSection.expectedBits(5556 * 140, 140) / 140).isCloseTo(14.35, org.assertj.core.api.Assertions.within(0.01));
        assertThat(EliasFanoSection.expectedBits(1000, 0)).isZero();
    }
}
