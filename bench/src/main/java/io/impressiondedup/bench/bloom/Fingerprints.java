package io.impressiondedup.bench.bloom;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Precomputed fingerprints of random (request id, ad id) pairs, so that filter benchmarks measure the
 * filters and MD5 is measured once, on its own.
 *
 * <p>Both filters get the same identity: ours its two probe hashes, Guava a single 64-bit key
 * (the truncated digest mixed with the ad hash) that it hashes again with its own Murmur3.
 */
public final class Fingerprints {

    final String[] requestIds;
    public final long[] h1;
    public final long[] h2;
    final long[] guavaKeys;

    public Fingerprints(int count, long seed) {
        FingerprintScheme scheme = FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS);
        RequestIdDigester digester = new RequestIdDigester();
        SplittableRandom random = new SplittableRandom(seed);
        requestIds = new String[Math.min(count, 1 << 20)];
        h1 = new long[count];
        h2 = new long[count];
        guavaKeys = new long[count];
        for (int i = 0; i < count; i++) {
            String requestId = new UUID((random.nextLong() & ~0xF000L) | 0x4000L, random.nextLong()).toString();
            if (i < requestIds.length) {
                requestIds[i] = requestId;
            }
            long ad = HashMixing.adIdHash("ad-" + random.nextInt(5000));
            digester.digest(requestId);
            h1[i] = scheme.probeHash1(digester.high(), digester.low(), ad);
            h2[i] = scheme.probeHash2(digester.high(), digester.low(), ad);
            guavaKeys[i] = scheme.truncatedHigh(digester.high()) ^ ad;
        }
    }
}
