package io.impressiondedup.state.bloom;

import io.impressiondedup.state.identity.HashMixing;

/**
 * Bit operations inside one 512-bit block: the only place probe positions are computed.
 *
 * <p><b>Why blocks.</b> A classic Bloom filter scatters an element's k probes over the whole bit
 * array: k cache misses in memory and, once the filter lives in RocksDB, k page reads. Here all k
 * probes of an element fall into one 512-bit block (eight longs, one cache line on x86 and ARM), so a
 * lookup touches one cache line and one state page. The price is a slightly higher FPP at the same
 * size, because blocks receive unequal numbers of elements; {@link BloomSizing} pays it back with a
 * few percent more bits.
 *
 * <p><b>Probe positions.</b> A bit inside the block needs 9 bits of hash. The probes are consecutive
 * 9-bit fields of a word stream {@code w0 = h2}, {@code wi = mix64(h2 + i * h1)}: Kirsch and
 * Mitzenmacher's double hashing {@code h2 + i h1}, computed over 64 bits and passed through the
 * SplitMix64 finaliser, seven probes per word. Double hashing straight into 512 positions
 * ({@code (a + i b) mod 512}) would give only 2^18 probe patterns and degenerate when {@code b} is a
 * multiple of a large power of two (every probe on one or two bits); the finalised fields are
 * independent and uniform, which is exactly what the blocked-FPP formula in {@link BloomSizing}
 * assumes, so the measured FPP matches the sizing. Probes may coincide, as the formula allows.
 *
 * <p><b>Binary format:</b> these positions are what checkpointed filters contain. Never change them
 * without a new filter format version.
 */
public final class BloomBlock {

    public static final int BITS = 512;
    public static final int WORDS = BITS / Long.SIZE;
    /** 9 bits address a bit in the block; a 64-bit word holds seven such fields. */
    static final int PROBES_PER_WORD = 7;
    static final int PROBE_BITS = 9;
    static final int PROBE_MASK = BITS - 1;
    /** More probes than this never pays off inside a 512-bit block. */
    public static final int MAX_PROBES = 32;

    private BloomBlock() {}

    /** The block of an element, by multiply-shift on the top 32 bits of {@code h1} (uniform, no modulo). */
    public static int blockOf(long h1, int numBlocks) {
        return (int) (((h1 >>> 32) * numBlocks) >>> 32);
    }

    /** Whether all {@code probes} bits of the element are set in the block at {@code offset}. */
    public static boolean mightContain(long[] words, int offset, long h1, long h2, int probes) {
        return walkProbes(words, offset, h1, h2, probes, false);
    }

    /**
     * Sets the element's bits in the block at {@code offset}.
     *
     * @return whether any bit changed, i.e. the element was not already (possibly falsely) contained
     */
    public static boolean put(long[] words, int offset, long h1, long h2, int probes) {
        return walkProbes(words, offset, h1, h2, probes, true);
    }

    /**
     * The one walk over an element's probe bits (the word stream of the class comment). With {@code set} it
     * sets each bit and returns whether any changed; without, it returns false at the first clear bit, else
     * true. Each caller passes a constant: once the JIT inlines the walk into it, the other branch folds away.
     */
    private static boolean walkProbes(long[] words, int offset, long h1, long h2, int probes, boolean set) {
        long w = h2;
        long changed = 0;
        for (int p = 0, inWord = 0, round = 0; p < probes; p++, inWord++) {
            if (inWord == PROBES_PER_WORD) {
                w = HashMixing.mix64(h2 + (++round) * h1);
                inWord = 0;
            }
            int bit = (int) w & PROBE_MASK;
            w >>>= PROBE_BITS;
            int index = offset + (bit >>> 6);
            long mask = 1L << bit;
            long before = words[index];
            if (set) {
                changed |= ~before & mask;
                words[index] = before | mask;
            } else if ((before & mask) == 0) {
                return false;
            }
        }
        return !set || changed != 0;
    }
}
