package io.impressiondedup.state.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FingerprintSchemeTest {

    private final FingerprintScheme scheme = FingerprintScheme.withKeyBits(64);
    private final RequestIdDigester digester = new RequestIdDigester();

    @Test
    void sameRequestAndAdGiveSameProbeHashes() {
        assertThat(hashes(scheme, "r-1", "ad-7")).isEqualTo(hashes(scheme, "r-1", "ad-7"));
    }

    @Test
    void anotherAdOfTheSameRequestIsAnotherIdentity() {
        long[] first = hashes(scheme, "r-1", "ad-7");
        long[] second = hashes(scheme, "r-1", "ad-8");
        assertThat(first[0]).isNotEqualTo(second[0]);
        assertThat(first[1]).isNotEqualTo(second[1]);
    }

    @Test
    void digestsEqualInTheKeptBitsAreOneIdentity() {
        FingerprintScheme bits40 = FingerprintScheme.withKeyBits(40);
        long digest = 0x0123456789ABCDEFL;
        long differsBeyondBit40 = digest ^ 0x0000000000FFFFFFL;
        long differsAtBit39 = digest ^ (1L << 24);
        long ad = HashMixing.adIdHash("ad");

        assertThat(bits40.probeHash1(differsBeyondBit40, 99, ad)).isEqualTo(bits40.probeHash1(digest, 7, ad));
        assertThat(bits40.probeHash2(differsBeyondBit40, 99, ad)).isEqualTo(bits40.probeHash2(digest, 7, ad));
        assertThat(bits40.probeHash1(differsAtBit39, 7, ad)).isNotEqualTo(bits40.probeHash1(digest, 7, ad));
    }

    @Test
    void keyBitsAbove64AlsoKeepTheLowWordOfTheDigest() {
        FingerprintScheme bits128 = FingerprintScheme.withKeyBits(128);
        long ad = HashMixing.adIdHash("ad");
        assertThat(bits128.probeHash1(1, 2, ad)).isNotEqualTo(bits128.probeHash1(1, 3, ad));
        assertThat(bits128.probeHash2(1, 2, ad)).isNotEqualTo(bits128.probeHash2(1, 3, ad));
        assertThat(scheme.probeHash2(1, 2, ad)).isEqualTo(scheme.probeHash2(1, 3, ad));
    }

    @Test
    void theSeedChangesEveryProbeHash() {
        FingerprintScheme other = new FingerprintScheme(64, 42);
        assertThat(hashes(other, "r", "a")[0]).isNotEqualTo(hashes(scheme, "r", "a")[0]);
        assertThat(hashes(other, "r", "a")[1]).isNotEqualTo(hashes(scheme, "r", "a")[1]);
    }

    @Test
    void keyBitsOutsideThirtyTwoTo128AreRejectedQuotingTheValue() {
        assertThatThrownBy(() -> FingerprintScheme.withKeyBits(31)).hasMessageContaining("31");
        assertThatThrownBy(() -> FingerprintScheme.withKeyBits(129)).hasMessageContaining("129");
    }

    @Test
    void shardComesFromTheLeading32BitsOnly() {
        long digest = 0xDEADBEEF00000000L;
        assertThat(FingerprintScheme.shardOf(digest | 0xFFFFFFFFL, 128)).isEqualTo(FingerprintScheme.shardOf(digest, 128));
    }

    @Test
    void timeBasedUuidsSpreadEvenlyOverShards() {
        // Version-1 UUIDs minted in one process share their node id and most of their timestamp, so
        // the raw strings are far from uniform; their MD5 digests must not be.
        int shards = 128;
        int perShard = 1000;
        long[] counts = new long[shards];
        long time = 0x1EE5A5B0C0D0E0FL;
        for (int i = 0; i < shards * perShard; i++) {
            UUID v1 = new UUID(((time + i * 10L) << 32) | 0x11EEL | 0x1000L, 0x8000A1B2C3D4E5F6L);
            digester.digest(v1.toString());
            counts[FingerprintScheme.shardOf(digester.high(), shards)]++;
        }
        assertThat(chiSquare(counts, perShard)).isLessThan(chiSquareCritical999(shards - 1));
    }

    @Test
    void randomRequestIdsSpreadEvenlyOverShardsThatAreNotPowersOfTwo() {
        int shards = 100;
        int perShard = 1000;
        long[] counts = new long[shards];
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < shards * perShard; i++) {
            digester.digest(new UUID(random.nextLong(), random.nextLong()).toString());
            counts[FingerprintScheme.shardOf(digester.high(), shards)]++;
        }
        assertThat(chiSquare(counts, perShard)).isLessThan(chiSquareCritical999(shards - 1));
    }

    private long[] hashes(FingerprintScheme s, String requestId, String adId) {
        digester.digest(requestId);
        long ad = HashMixing.adIdHash(adId);
        return new long[] {s.probeHash1(digester.high(), digester.low(), ad), s.probeHash2(digester.high(), digester.low(), ad)};
    }

    private static double chiSquare(long[] counts, double expected) {
        double sum = 0;
        for (long c : counts) {
            sum += (c - expected) * (c - expected) / expected;
        }
        return sum;
    }

    /** 99.9% quantile of chi-square with df degrees of freedom (Wilson-Hilferty approximation). */
    private static double chiSquareCritical999(int df) {
        double z = 3.090;
        double t = 1 - 2.0 / (9 * df) + z * Math.sqrt(2.0 / (9 * df));
        return df * t * t * t;
    }
}
