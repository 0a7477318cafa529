package io.impressiondedup.state.fingerprint;

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
}
