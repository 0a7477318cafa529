package io.impressiondedup.state.identity;

/**
 * Non-cryptographic mixing used after the one MD5 per record.
 *
 * <p>MD5 supplies the entropy of the request id; everything else (combining in the ad id, deriving
 * Bloom probe positions) only needs a cheap bijective finaliser with full avalanche, so that bits
 * taken from different positions of a result are independent. We use the finaliser of SplitMix64
 * (Steele, Lea, Flood 2014, constants from Stafford's "variant 13"), the same function as {@code
 * java.util.SplittableRandom#mix64}.
 *
 * <p><b>Binary format:</b> the outputs of these functions decide which bits are set in checkpointed
 * filters. Changing a constant here makes every existing filter unreadable (all its elements become
 * false negatives); such a change needs a new filter format version.
 */
public final class HashMixing {

    /** 2^64 / golden ratio: the odd constant that spreads consecutive integers over 64 bits. */
    public static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private static final long FNV64_OFFSET_BASIS = 0xCBF29CE484222325L;
    private static final long FNV64_PRIME = 0x100000001B3L;

    private HashMixing() {}

    /** SplitMix64 finaliser: a bijection on 64-bit values with full avalanche. */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * 64-bit hash of an ad id: FNV-1a over its UTF-16 code units, then {@link #mix64}.
     *
     * <p>Ad ids are short (tens of characters) and only need to be told apart within one request, so a
     * cryptographic hash would be wasted work; FNV-1a reads the string without allocating, and the
     * finaliser repairs its weak high bits.
     */
    public static long adIdHash(CharSequence adId) {
        long h = FNV64_OFFSET_BASIS;
        for (int i = 0, n = adId.length(); i < n; i++) {
            h = (h ^ adId.charAt(i)) * FNV64_PRIME;
        }
        return mix64(h ^ adId.length());
    }

    /**
     * 64-bit hash of an ad id keyed by the 128-bit key {@code (k0, k1)}: SipHash-2-4 (Aumasson and
     * Bernstein 2012) over its UTF-16 code units, each as two little-endian bytes (so four characters
     * fill one 64-bit word). The same value as Guava's {@code Hashing.sipHash24(k0, k1).hashUnencodedChars}.
     *
     * <p><b>Why keyed.</b> {@link #adIdHash} is public knowledge: whoever chooses ad ids can search for
     * two whose FNV-1a states collide, and those two are one identity under every request id, so a
     * genuine impression of one is dropped as a copy of the other. SipHash is a pseudo-random function
     * of its key: without the key ({@link FingerprintSecret#keyedAdIdHash}) no one can find a
     * collision faster than by chance. It reads the characters in place, allocating nothing, because
     * it runs once per record at the source.
     */
    public static long keyedAdIdHash(long k0, long k1, CharSequence adId) {
        long v0 = 0x736f6d6570736575L ^ k0;
        long v1 = 0x646f72616e646f6dL ^ k1;
        long v2 = 0x6c7967656e657261L ^ k0;
        long v3 = 0x7465646279746573L ^ k1;
        int n = adId.length();
        int full = n & ~3;
        // Steps 0 .. words-1 absorb one message word each with 2 SipRounds; the last word holds the 0 to 3
        // remaining characters and the message length in bytes mod 256 in its top byte. The step after it is the
        // finalization: v2 ^= 0xff and 4 SipRounds. One loop, so the SipRound is written once and nothing allocates.
        int words = full / 4 + 1;
        for (int step = 0; step <= words; step++) {
            boolean finalization = step == words;
            long m = 0;
            if (finalization) {
                v2 ^= 0xFF;
            } else if (step < words - 1) {
                int i = 4 * step;
                m = adId.charAt(i) | (long) adId.charAt(i + 1) << 16 | (long) adId.charAt(i + 2) << 32
                        | (long) adId.charAt(i + 3) << 48;
            } else {
                m = (long) (2 * n) << 56;
                for (int i = full; i < n; i++) {
                    m |= (long) adId.charAt(i) << (16 * (i - full));
                }
            }
            v3 ^= m;
            for (int round = 0, rounds = finalization ? 4 : 2; round < rounds; round++) {
                v0 += v1; v2 += v3; v1 = Long.rotateLeft(v1, 13); v3 = Long.rotateLeft(v3, 16);
                v1 ^= v0; v3 ^= v2; v0 = Long.rotateLeft(v0, 32);
                v2 += v1; v0 += v3; v1 = Long.rotateLeft(v1, 17); v3 = Long.rotateLeft(v3, 21);
                v1 ^= v2; v3 ^= v0; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
