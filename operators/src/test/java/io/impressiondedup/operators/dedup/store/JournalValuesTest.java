package io.impressiondedup.operators.dedup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The bytes of a page journal value ({@link JournalValues}): what the journal collects in an interval is written sorted
 * and read back entry for entry, a fingerprint group in the bytes its Elias-Fano section computes, a Bloom group as it
 * was; corrupt values are refused naming the shard.
 */
class JournalValuesTest {

    private static final boolean[] FINGERPRINTS_SMALL = smallNumbers();
    private static final long FINGERPRINT_BUCKET = 20_430;
    private static final long BLOOM_BUCKET = 20_431;

    private static boolean[] smallNumbers() {
        boolean[] small = new boolean[StateFormat.values().length];
        small[StateFormat.FINGERPRINTS.ordinal()] = true;
        return small;
    }

    /** Collects entries in the version 2 layout, as {@code PageJournal#record} does. */
    private static final class Collected {
        final DataOutputSerializer out = new DataOutputSerializer(256);
        long lastBucket = Long.MIN_VALUE;
        StateFormat lastFormat;

        Collected() throws IOException {
            out.writeByte(JournalValues.UNSORTED_VERSION);
        }

        Collected add(long bucket, StateFormat format, int detail, long a, long b) throws IOException {
            if (bucket == lastBucket && format == lastFormat) {
                out.writeByte(JournalValues.SAME_BUCKET);
            } else {
                out.writeByte(JournalValues.NEW_BUCKET);
                out.writeLong(bucket);
                out.writeByte(format.ordinal());
                lastBucket = bucket;
                lastFormat = format;
            }
            JournalValues.writeVarLong(out, detail);
            if (format == StateFormat.FINGERPRINTS) {
                JournalValues.writeVarLong(out, a);
                JournalValues.writeVarLong(out, b);
            } else {
                out.writeLong(a);
                out.writeLong(b);
            }
            return this;
        }

        byte[] sorted() throws IOException {
            return JournalValues.sorted(out.getSharedBuffer(), out.length(), FINGERPRINTS_SMALL);
        }
    }

    /** Every entry read back, as "bucket format detail a b". */
    private static List<String> entriesOf(byte[] value) throws IOException {
        List<String> read = new ArrayList<>();
        JournalValues.read(value, 7, FINGERPRINTS_SMALL, new JournalValues.Entries() {
            private String bucket;

            @Override
            public void bucket(long bucket, StateFormat format) {
                this.bucket = bucket + " " + format.name();
            }

            @Override
            public void entry(int detail, long a, long b) {
                read.add(bucket + " " + detail + " " + a + " " + b);
            }

            @Override
            public void fromHashes(int detail, long h1, long h2) {
                read.add(bucket + " hashes " + detail + " " + h1 + " " + h2);
            }
        });
        return read;
    }

    @Test
    void entriesOfBothFormatsAndSeveralBucketsReadBackAsCollected() throws IOException {
        Collected collected = new Collected();
        List<String> expected = new ArrayList<>();
        Random random = new Random(11);
        for (int i = 0; i < 2_000; i++) {
            int kind = random.nextInt(4);
            long bucket = kind == 3 ? BLOOM_BUCKET : FINGERPRINT_BUCKET - kind; // three fingerprint buckets, one Bloom
            StateFormat format = kind == 3 ? StateFormat.BLOOM : StateFormat.FINGERPRINTS;
            int detail = kind == 3 ? random.nextInt(2) : random.nextInt(2) << 8 | random.nextInt(3); // layer; part and band
            long a = kind == 3 ? random.nextLong() : random.nextInt(1_600);
            long b = kind == 3 ? random.nextLong() : random.nextInt(1 << 20);
            collected.add(bucket, format, detail, a, b);
            expected.add(bucket + " " + format.name() + " " + detail + " " + a + " " + b);
        }

        byte[] value = collected.sorted();

        assertThat(value[0]).isEqualTo(JournalValues.SORTED_VERSION);
        assertThat(entriesOf(value)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aBloomGroupKeepsItsEntriesInInsertOrder() throws IOException {
        Collected collected = new Collected();
        List<String> expected = new ArrayList<>();
        for (long i = 0; i < 5; i++) {
            long h1 = (5 - i) * 0x1111_1111_1111_1111L; // decreasing: a sort would reorder them
            collected.add(BLOOM_BUCKET, StateFormat.BLOOM, 1, h1, -i);
            expected.add(BLOOM_BUCKET + " BLOOM 1 " + h1 + " " + -i);
        }
        byte[] value = collected.sorted();

        assertThat(entriesOf(value)).containsExactlyElementsOf(expected);
        // the version byte, one group header (bucket, format, detail, coding), the count, then both hashes of each entry
        assertThat(value).hasSize(1 + 8 + 1 + 1 + 1 + 1 + 5 * 16);
    }

    @Test
    void aFingerprintGroupIsReadBackSortedByPageThenValueWithoutRepeats() throws IOException {
        Collected collected = new Collected();
        long[][] entries = {{9, 5}, {2, 700}, {9, 1}, {2, 700}, {0, 3}};
        for (long[] e : entries) {
            collected.add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, e[0], e[1]);
        }

        assertThat(entriesOf(collected.sorted())).containsExactly(
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 0 3",
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 2 700",
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 9 1",
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 9 5");
    }

    /**
     * c inserts into one shard's band over P pages: the group takes its header and the stream of the Elias-Fano section
     * of its c values {@code page m + value} (m = the largest value + 1), {@code c l + c + (v_max >>> l)} bits with
     * {@code l = floor(log2((v_max + 1) / c))} (EliasFanoSection), in whole words: exactly. At 50M in state (about 1,600
     * pages a shard, values of 20 bits, 3,000 inserts a shard and interval) that is under 2.7 B an insert, against more
     * than 6 B as varints one by one.
     */
    @Test
    void aFingerprintGroupTakesTheBitsOfItsEliasFanoSection() throws IOException {
        int pages = 1_600;
        long range = 1 << 20;
        int c = 3_000;
        SplittableRandom random = new SplittableRandom(5);
        Collected collected = new Collected();
        long[] page = new long[c];
        long[] value = new long[c];
        long maxValue = 0;
        for (int i = 0; i < c; i++) {
            page[i] = random.nextInt(pages);
            value[i] = random.nextLong(range);
            collected.add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, page[i], value[i]);
            maxValue = Math.max(maxValue, value[i]);
        }
        long m = maxValue + 1;
        long last = 0;
        for (int i = 0; i < c; i++) {
            last = Math.max(last, page[i] * m + value[i]);
        }
        long[] composites = new long[c];
        Arrays.setAll(composites, i -> page[i] * m + value[i]);
        assertThat(Arrays.stream(composites).distinct().count()).as("distinct draws").isEqualTo(c);

        byte[] sorted = collected.sorted();

        int lowBits = EliasFanoSection.lowBitsFor(last + 1, c);
        long highBits = c + (last >>> lowBits);
        long streamBits = (long) c * lowBits + highBits;
        int header = 1 + 8 + 1 + 1 + 1 + varintBytes(m) + varintBytes(c) + 1 + varintBytes(highBits);
        assertThat((long) sorted.length).as("bytes of the sorted value")
                .isEqualTo(header + ((streamBits + 63) >>> 6) * Long.BYTES);
        assertThat((double) sorted.length / c).as("bytes an insert").isLessThan(2.7);
        assertThat(collected.out.length()).as("the same entries one by one as varints").isGreaterThan(6 * c);
    }

    private static int varintBytes(long value) {
        return Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
    }

    @Test
    void aGroupTooLargeForOneSectionIsWrittenInSeveral() throws IOException {
        Collected collected = new Collected();
        int n = JournalValues.MAX_SORTED_GROUP + 1_000;
        for (int i = 0; i < n; i++) {
            collected.add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, i % 3, i);
        }
        List<String> read = entriesOf(collected.sorted());

        assertThat(read).hasSize(n).doesNotHaveDuplicates();
        assertThat(read.get(n - 1)).isEqualTo(FINGERPRINT_BUCKET + " FINGERPRINTS 0 2 " + (n - 1));
    }

    @Test
    void smallNumbersTooLargeToCombineAreWrittenAsVarints() throws IOException {
        Collected collected = new Collected()
                .add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, 1L << 30, 1L << 40)
                .add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, 3, 4);

        assertThat(entriesOf(collected.sorted())).containsExactly(
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 " + (1L << 30) + " " + (1L << 40),
                FINGERPRINT_BUCKET + " FINGERPRINTS 0 3 4");
    }

    @Test
    void aCorruptValueIsRefusedNamingTheShard() throws IOException {
        byte[] value = new Collected().add(FINGERPRINT_BUCKET, StateFormat.FINGERPRINTS, 0, 5, 9).sorted();
        byte[] unknownCoding = value.clone();
        unknownCoding[1 + 8 + 1 + 1] = 9;
        assertThatThrownBy(() -> entriesOf(unknownCoding)).isInstanceOf(IOException.class)
                .hasMessageContaining("shard 7").hasMessageContaining("coded 9");

        byte[] noValues = value.clone();
        noValues[1 + 8 + 1 + 1 + 1 + 1] = 0; // the count: 0 values
        assertThatThrownBy(() -> entriesOf(noValues)).isInstanceOf(IOException.class)
                .hasMessageContaining("shard 7").hasMessageContaining("a sorted group of 0 values");

        byte[] truncated = Arrays.copyOf(value, value.length - 3);
        assertThatThrownBy(() -> entriesOf(truncated)).isInstanceOf(IOException.class);

        byte[] otherRelease = value.clone();
        otherRelease[0] = 4;
        assertThatThrownBy(() -> entriesOf(otherRelease)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Restore from a savepoint");
    }
}
