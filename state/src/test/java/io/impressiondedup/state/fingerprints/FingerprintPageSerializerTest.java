package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.TestElements;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class FingerprintPageSerializerTest {

    private static final FingerprintPageSerializer SERIALIZER = FingerprintPageSerializer.INSTANCE;

    private static byte[] bytes(FingerprintPage page) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        SERIALIZER.serialize(page, out);
        return out.getCopyOfBuffer();
    }

    private static FingerprintPage read(byte[] bytes) throws IOException {
        return SERIALIZER.deserialize(new DataInputDeserializer(bytes));
    }

    private static byte[] hex(String hex) {
        String[] parts = hex.trim().split("\\s+");
        byte[] out = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return out;
    }

    /** {0, 5, 15} in U = 16: l = 2, highs 0, 1, 3 at bits 0, 2, 5 (H = 6), lows 0, 1, 3 from bit 6; {7} in U = 1000: l = 9. */
    private static FingerprintPage smallPage() {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(20_000, 0, 0, 16);
        page.insertValue(20_000, 0, 5, 16);
        page.insertValue(20_000, 0, 15, 16);
        page.insertValue(20_001, 1, 7, 1000);
        return page;
    }

    @Test
    void formatV1IsPinnedByteForByte() throws IOException {
        assertThat(bytes(smallPage())).isEqualTo(hex(
                "02" // sections
                        + " C0 B8 02 00 03 02 25 0D" // zigzag(20000) = 40000, band 0, c 3, l 2, stream 0b1100_0010_0101 over 12 bits
                        + " 02 01 01 09 0F 00")); // delta 1, band 1, c 1, l 9, stream: high bit 0, low 7 in bits 1..9
        assertThat(read(bytes(smallPage()))).isEqualTo(smallPage());
        assertThat(smallPage().encodedBytes()).isEqualTo(15);
    }

    @Test
    void aPageRoundTripsSectionForSectionAndKeepsEveryKey() throws IOException {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(3_000, 0.001, 5, 2);
        FingerprintPage[] pages = {new FingerprintPage(), new FingerprintPage()};
        long[][] keys = new TestElements(3).next(9_000);
        long[] held = new long[3];
        for (int i = 0; i < keys[0].length; i++) {
            int b = i % 3;
            if (pages[sizing.pageOf(keys[0][i])].insert(-1 + b, sizing.bandFor(held[b]), keys[1][i], sizing)) {
                held[b]++;
            }
        }
        FingerprintPage[] read = {read(bytes(pages[0])), read(bytes(pages[1]))};
        for (int p = 0; p < 2; p++) {
            assertThat(read[p]).isEqualTo(pages[p]);
            assertThat(bytes(read[p])).isEqualTo(bytes(pages[p]));
            assertThat(pages[p].encodedBytes()).isEqualTo(bytes(pages[p]).length);
        }
        for (int i = 0; i < keys[0].length; i++) {
            assertThat(read[sizing.pageOf(keys[0][i])].mightContain(-1 + i % 3, keys[1][i], sizing)).as("key %s", i).isTrue();
        }
        assertThat(read[0].count(-1) + read[1].count(-1)).isEqualTo(held[0]);
    }

    /**
     * A section of a band far over plan: 3,200 values over 2^33 (band 6 of a page holding 100 values a bucket on plan)
     * has 21 low bits and high parts up to about 4,100. Its stream reads back: the check that the largest high part fits
     * beside the low bits shifts a long by 42 (an int shift by 42 is one by 10, which refused such a state at restore).
     */
    @Test
    void aSectionOfAGrowthBandWithHighPartsOfThousandsReadsBack() throws IOException {
        long range = 1L << 33;
        long[] values = new long[3_200];
        java.util.Random random = new java.util.Random(9);
        java.util.TreeSet<Long> distinct = new java.util.TreeSet<>();
        while (distinct.size() < values.length) {
            distinct.add(Math.floorMod(random.nextLong(), range));
        }
        int i = 0;
        for (long v : distinct) {
            values[i++] = v;
        }
        FingerprintPage page = new FingerprintPage();
        page.putSection(7, 6, EliasFanoSection.of(range, values));
        assertThat(page.lowBitsAt(0)).isEqualTo(21);
        assertThat(read(bytes(page))).isEqualTo(page);
    }

    /**
     * The reader takes a stream's bytes in steps (first what any high vector leaves, then what the stream must hold beyond the
     * bits read) and resumes its search for the high vector's last one where the last step ended, inside a word: 8 values
     * without low bits (U = 15) put their ones at bits 0, 3, ..., 21, past the first step's byte.
     */
    @Test
    void aSectionWhoseHighVectorOutrunsTheFirstBytesReadReadsBack() throws IOException {
        FingerprintPage page = new FingerprintPage();
        page.putSection(7, 0, EliasFanoSection.of(15, new long[] {0, 2, 4, 6, 8, 10, 12, 14}));
        assertThat(page.lowBitsAt(0)).isZero();
        assertThat(page.encodedBitsAt(0)).isEqualTo(22);

        assertThat(read(bytes(page))).isEqualTo(page);
    }

    /**
     * Sections of every shape the reader meets (1 to 400 values, ranges from dense to 2^40: no low bits to 30 of them, high
     * vectors that end in the first byte read or many steps later) read back to the page written, byte for byte.
     */
    @Test
    void pagesOfRandomSectionsReadBackByteForByte() throws IOException {
        java.util.Random random = new java.util.Random(36);
        for (int p = 0; p < 300; p++) {
            FingerprintPage page = new FingerprintPage();
            int sections = 1 + random.nextInt(4);
            for (int s = 0; s < sections; s++) {
                int count = 1 + random.nextInt(400);
                long range = count + (long) (random.nextDouble() * Math.pow(2, random.nextInt(41)));
                java.util.TreeSet<Long> distinct = new java.util.TreeSet<>();
                while (distinct.size() < count) {
                    distinct.add(Math.floorMod(random.nextLong(), range));
                }
                page.putSection(20_000 + s, random.nextInt(3), EliasFanoSection.of(range, distinct.stream().mapToLong(Long::longValue).toArray()));
            }
            byte[] written = bytes(page);
            FingerprintPage read = read(written);
            assertThat(read).as("page %s", p).isEqualTo(page);
            assertThat(bytes(read)).isEqualTo(written);
        }
    }

    @Test
    void anOverflowSectionRoundTripsBesideTheBands() throws IOException {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(100, 0.01, 3, 1);
        FingerprintPage page = new FingerprintPage();
        page.insert(20_000, 0, 0x1234_5678_9ABC_DEF0L, sizing);
        page.insert(20_000, FingerprintStoreSizing.OVERFLOW_BAND, 0x0FED_CBA9_8765_4321L, sizing);
        FingerprintPage read = read(bytes(page));
        assertThat(read).isEqualTo(page);
        assertThat(read.bandAt(1)).isEqualTo(FingerprintStoreSizing.OVERFLOW_BAND);
        assertThat(read.mightContain(20_000, 0x0FED_CBA9_8765_4321L, sizing)).isTrue();
    }

    @Test
    void anEmptyPageIsOneByte() throws IOException {
        assertThat(bytes(new FingerprintPage())).containsExactly(0);
        assertThat(read(new byte[] {0}).isEmpty()).isTrue();
    }

    @Test
    void corruptInputThrowsAnIOExceptionNamingWhatIsWrong() {
        assertThatThrownBy(() -> read(hex("FF FF 01"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: 32767 sections (at most 4096)");
        assertThatThrownBy(() -> read(hex("01 02 12 01 00"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 0 (bucket 1, band 18): band above 17");
        assertThatThrownBy(() -> read(hex("02 02 00 01 00 01 00 00 01 00 01"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 1 (bucket 1, band 0) does not follow bucket 1, band 0");
        assertThatThrownBy(() -> read(hex("01 02 00 FF FF FF FF 0F 3E"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 0 (bucket 1, band 0): 4294967295 values of 62 low bits"
                        + " (at most 33554432 bits, 62 low bits)");
        assertThatThrownBy(() -> read(hex("01 02 00 03 02 25"))).isInstanceOf(IOException.class); // stream ends early
        assertThatThrownBy(() -> read(hex("01 02 00 00 00"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 0 (bucket 1, band 0): 0 values of 0 low bits"
                        + " (at most 33554432 bits, 62 low bits)");
        // two values of high part 0 (bits 0 and 1), l = 2, low parts 3 then 1: 0b01_11_11
        assertThatThrownBy(() -> read(hex("01 02 00 02 02 1F"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 0 (bucket 1, band 0): values must be strictly increasing,"
                        + " but value 1 is 1 after 3");
        assertThatThrownBy(() -> read(hex("01 02 00 01 00 81"))).isInstanceOf(IOException.class)
                .hasMessage("Corrupt fingerprint page: section 0 (bucket 1, band 0): bits after the end of the stream are not zero");
    }

    @Test
    void aSnapshotRestoresTheSerializer() {
        assertThat(new FingerprintPageSerializer.Snapshot().restoreSerializer()).isEqualTo(SERIALIZER);
        assertThat(SERIALIZER.copy(smallPage())).isEqualTo(smallPage());
    }
}
