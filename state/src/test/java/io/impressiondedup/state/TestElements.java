package io.impressiondedup.state;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Elements for filter tests: real fingerprints of random v4 request ids (MD5 and all), so the tests
 * exercise the hashing the job uses, not a stand-in.
 */
public final class TestElements {

    private final SplittableRandom random;
    private final FingerprintScheme scheme;
    private final RequestIdDigester digester = new RequestIdDigester();

    public TestElements(long seed, FingerprintScheme scheme) {
        this.random = new SplittableRandom(seed);
        this.scheme = scheme;
    }

    public TestElements(long seed) {
        this(seed, FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS));
    }

    /** A random version-4 UUID string. */
    public String nextRequestId() {
        long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }

    /** Probe hashes {h1, h2} of a fresh random (request, ad) identity. */
    public long[] next() {
        return hashes(nextRequestId(), "ad-" + random.nextInt(1000));
    }

    public long[] hashes(String requestId, String adId) {
        digester.digest(requestId);
        long ad = HashMixing.adIdHash(adId);
        return new long[] {
            scheme.probeHash1(digester.high(), digester.low(), ad), scheme.probeHash2(digester.high(), digester.low(), ad)
        };
    }

    /** {@code count} fresh identities as {h1[], h2[]}. */
    public long[][] next(int count) {
        long[][] out = new long[2][count];
        for (int i = 0; i < count; i++) {
            long[] h = next();
            out[0][i] = h[0];
            out[1][i] = h[1];
        }
        return out;
    }
}
