package io.impressiondedup.state.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.apache.flink.shaded.guava33.com.google.common.hash.Hashing;
import org.junit.jupiter.api.Test;

class HashMixingTest {

    /** The key of SipHash's published test vectors: bytes 00..0f, read as two little-endian longs. */
    private static final long VECTOR_K0 = 0x0706050403020100L;
    private static final long VECTOR_K1 = 0x0f0e0d0c0b0a0908L;

    @Test
    void theKeyedHashOfTheEmptyStringIsSipHashsPublishedVector() {
        // Aumasson and Bernstein's reference vectors, message of length 0: bytes 31 0e 0e dd 47 db 6f 72.
        assertThat(HashMixing.keyedAdIdHash(VECTOR_K0, VECTOR_K1, "")).isEqualTo(0x726fdb47dd0e0e31L);
    }

    @Test
    void theKeyedHashIsSipHash24OverTheLittleEndianUtf16CodeUnits() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 5_000; i++) {
            long k0 = random.nextLong();
            long k1 = random.nextLong();
            String adId = randomString(random, random.nextInt(41));
            assertThat(HashMixing.keyedAdIdHash(k0, k1, adId))
                    .as("ad id %s of length %s", adId.codePoints().mapToObj(Integer::toHexString).toList(), adId.length())
                    .isEqualTo(Hashing.sipHash24(k0, k1).hashUnencodedChars(adId).asLong());
        }
    }

    @Test
    void theKeyedHashDependsOnBothHalvesOfTheKey() {
        long hash = HashMixing.keyedAdIdHash(1, 2, "ad-7");
        assertThat(HashMixing.keyedAdIdHash(3, 2, "ad-7")).isNotEqualTo(hash);
        assertThat(HashMixing.keyedAdIdHash(1, 3, "ad-7")).isNotEqualTo(hash);
    }

    /** ASCII, Latin-1, CJK and lone or paired surrogates: every kind of UTF-16 code unit an ad id can hold. */
    private static String randomString(SplittableRandom random, int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(4)) {
                case 0 -> s.append((char) random.nextInt(0x20, 0x7F));
                case 1 -> s.append((char) random.nextInt(0x80, 0x100));
                case 2 -> s.append((char) random.nextInt(0x4E00, 0xA000));
                default -> s.append((char) random.nextInt(0x10000));
            }
        }
        return s.toString();
    }
}
