package io.impressiondedup.state.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FingerprintSchemeTest {

    private final FingerprintScheme scheme = FingerprintScheme.withKeyBits(64);
    private final RequestIdDigester digester = new RequestIdDigester();

    /**
     * Two ad ids of one FNV-1a-64 state, found by a birthday search over the leading 48 bits of the state after
     * three random code units (2^26 tries, seconds): the last unit of the second then cancels the low 16 bits. So
     * anyone can make such pairs; their unkeyed hashes are equal, whatever the request.
     */
    static final String CRAFTED_AD_ID = "\u5fe8\u9746\ub406x";
    static final String COLLIDING_AD_ID = "\u6bb8\ubfe7\u5b79\u681c";

    @Test
    void craftedAdIdsAreOneIdentityUnkeyedButTwoKeyedBySecret() {
        FingerprintSecret secret = FingerprintSecret.of("0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(HashMixing.adIdHash(COLLIDING_AD_ID)).as("the crafted pair collides unkeyed")
                .isEqualTo(HashMixing.adIdHash(CRAFTED_AD_ID));
        assertThat(secret.keyedAdIdHash(COLLIDING_AD_ID)).isNotEqualTo(secret.keyedAdIdHash(CRAFTED_AD_ID));

        FingerprintScheme unkeyed = FingerprintScheme.withKeyBits(64);
        FingerprintScheme keyed = unkeyed.withAdIdsKeyed(true);
        for (String requestId : new String[] {"r-1", "r-2", UUID.randomUUID().toString()}) {
            assertThat(hashes(unkeyed, secret, requestId, COLLIDING_AD_ID)).as("unkeyed, request %s", requestId)
                    .isEqualTo(hashes(unkeyed, secret, requestId, CRAFTED_AD_ID));
            long[] a = hashes(keyed, secret, requestId, CRAFTED_AD_ID);
            long[] b = hashes(keyed, secret, requestId, COLLIDING_AD_ID);
            assertThat(a[0]).as("keyed h1, request %s", requestId).isNotEqualTo(b[0]);
            assertThat(a[1]).as("keyed h2, request %s", requestId).isNotEqualTo(b[1]);
        }
    }

    @Test
    void theAdIdFlagPicksTheHashAndIsPartOfTheScheme() {
        FingerprintScheme keyed = scheme.withAdIdsKeyed(true);
        assertThat(scheme.adIdsKeyed()).isFalse();
        assertThat(keyed.adIdsKeyed()).isTrue();
        assertThat(scheme.adIdHash(1, 2)).isEqualTo(1);
        assertThat(keyed.adIdHash(1, 2)).isEqualTo(2);
        assertThat(keyed).isNotEqualTo(scheme).isEqualTo(new FingerprintScheme(64, FingerprintScheme.DEFAULT_SEED, true));
        assertThat(keyed.hashCode()).isNotEqualTo(scheme.hashCode());
        assertThat(keyed.toString()).contains("adIdsKeyed=true");
        assertThat(keyed.withAdIdsKeyed(false)).isEqualTo(scheme);
    }

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

    /** The probe hashes of an impression as the job with {@code secret} computes them for a filter of scheme {@code s}. */
    private static long[] hashes(FingerprintScheme s, FingerprintSecret secret, String requestId, String adId) {
        RequestIdDigester keyedDigester = new RequestIdDigester(secret);
        keyedDigester.digest(requestId);
        long adIdHash = s.adIdHash(HashMixing.adIdHash(adId), secret.keyedAdIdHash(adId));
        return new long[] {s.probeHash1(keyedDigester.high(), keyedDigester.low(), adIdHash),
                s.probeHash2(keyedDigester.high(), keyedDigester.low(), adIdHash)};
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
