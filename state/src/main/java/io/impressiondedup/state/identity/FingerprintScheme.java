package io.impressiondedup.state.identity;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.util.Objects;

/**
 * How an impression's identity becomes the two 64-bit hashes a Bloom filter probes with: the one
 * place where the dedup identity is defined.
 *
 * <p><b>Identity.</b> The leading {@code keyBits} bits of the request id's digest plus the ad id; the
 * digest is MD5(requestId), or with a {@link FingerprintSecret} the keyed MD5 that hides from whoever
 * crafts ids which shard and bits they get ({@link RequestIdDigester}). Truncation
 * is what makes the state small: two different request ids collide with probability 2^-keyBits, so
 * a day of n requests has about n^2 / 2^(keyBits+1) colliding pairs (the birthday bound the planner
 * prints; at 64 bits and 10^10 requests a day that is 2.7 pairs). The first 32 bits also choose the
 * shard, so {@code keyBits} may not go below 32: two records with one identity always meet in one
 * shard.
 *
 * <p><b>Probe hashes.</b> {@code h1} and {@code h2} are SplitMix64 finalisations of the truncated
 * digest combined with the ad id hash and the {@link #seed()}. MD5 is already uniform, so no second
 * cryptographic hash is needed; the finaliser only spreads the truncated bits (at 32 bits the digest
 * fills half a word) over all 64. {@code h1} picks the block; {@code h2} and the words derived from
 * it by double hashing pick the bits inside the block (see {@code BloomBlock}).
 *
 * <p><b>Shard.</b> {@link #shardOf} takes the leading 32 bits of the digest by multiply-shift, which
 * is uniform for any shard count. It deliberately does not reuse {@code h1}'s block bits' inputs in
 * the same form: if shard and block were both "digest mod something", every shard would only ever
 * use the blocks congruent to it.
 *
 * <p><b>Ad-id hash.</b> The ad id enters {@code h1} and {@code h2} as a 64-bit hash: with {@link
 * #adIdsKeyed()} the SipHash of it keyed by the fingerprint secret ({@link FingerprintSecret#keyedAdIdHash}),
 * else the public {@link HashMixing#adIdHash}, whose collisions anyone can craft (two such ad ids are one
 * identity under every request id). A job with a secret creates keyed filters; a filter keeps the flag it
 * was written with, so filters written unkeyed before a job had this flag are still probed with the unkeyed
 * hash until their bucket expires. {@link #adIdHash} picks the one a filter needs.
 *
 * <p><b>Binary format:</b> {@code keyBits}, {@code seed} and the ad-id flag are stored with every filter, and the
 * formulas below decide which bits are set. Never change them without a new filter format version.
 */
public final class FingerprintScheme implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    public static final int DEFAULT_KEY_BITS = 64;
    public static final int MIN_KEY_BITS = 32;
    public static final int MAX_KEY_BITS = 128;
    /** Seed of filters created by this version of the job. Stored per filter, so it may change. */
    public static final long DEFAULT_SEED = 0x5DEECE66DL;

    private static final long H2_SALT = 0xD6E8FEB86659FD93L;

    private final int keyBits;
    private final long seed;
    private final boolean adIdsKeyed;
    private final long highMask;
    private final long lowMask;

    /** A scheme whose ad ids are hashed unkeyed ({@link HashMixing#adIdHash}). */
    public FingerprintScheme(int keyBits, long seed) {
        this(keyBits, seed, false);
    }

    /** A scheme whose ad ids are hashed with the secret's key iff {@code adIdsKeyed}. */
    public FingerprintScheme(int keyBits, long seed, boolean adIdsKeyed) {
        checkArgument(
                keyBits >= MIN_KEY_BITS && keyBits <= MAX_KEY_BITS,
                "keyBits must be in [%s, %s] (the shard uses the first 32 bits), but was %s",
                MIN_KEY_BITS,
                MAX_KEY_BITS,
                keyBits);
        this.keyBits = keyBits;
        this.seed = seed;
        this.adIdsKeyed = adIdsKeyed;
        this.highMask = keyBits >= 64 ? -1L : -1L << (64 - keyBits);
        this.lowMask = keyBits <= 64 ? 0L : keyBits == 128 ? -1L : -1L << (128 - keyBits);
    }

    public static FingerprintScheme withKeyBits(int keyBits) {
        return new FingerprintScheme(keyBits, DEFAULT_SEED);
    }

    public int keyBits() {
        return keyBits;
    }

    public long seed() {
        return seed;
    }

    /** Whether ad ids are hashed with the fingerprint secret's key ({@link FingerprintSecret#keyedAdIdHash}). */
    public boolean adIdsKeyed() {
        return adIdsKeyed;
    }

    /** This scheme with ad ids hashed keyed iff {@code keyed}. */
    public FingerprintScheme withAdIdsKeyed(boolean keyed) {
        return keyed == adIdsKeyed ? this : new FingerprintScheme(keyBits, seed, keyed);
    }

    /**
     * Of a record's two ad-id hashes, the one this scheme's probe hashes take: {@code keyed} ({@link
     * FingerprintSecret#keyedAdIdHash}) if {@link #adIdsKeyed()}, else {@code unkeyed} ({@link HashMixing#adIdHash}).
     */
    public long adIdHash(long unkeyed, long keyed) {
        return adIdsKeyed ? keyed : unkeyed;
    }

    /** Leading bits 0..63 of the truncated digest; bits beyond {@code keyBits} are zero. */
    public long truncatedHigh(long digestHigh) {
        return digestHigh & highMask;
    }

    /** Bits 64..127 of the truncated digest; zero when {@code keyBits <= 64}. */
    public long truncatedLow(long digestLow) {
        return digestLow & lowMask;
    }

    /** The hash that selects the 512-bit block. */
    public long probeHash1(long digestHigh, long digestLow, long adIdHash) {
        long truncatedHigh = digestHigh & highMask;
        return HashMixing.mix64(truncatedHigh ^ seed ^ HashMixing.mix64(adIdHash + (digestLow & lowMask)));
    }

    /** The hash that selects the bits inside the block. */
    public long probeHash2(long digestHigh, long digestLow, long adIdHash) {
        long truncatedHigh = digestHigh & highMask;
        long truncatedLow = digestLow & lowMask;
        return HashMixing.mix64(
                Long.rotateLeft(truncatedHigh, 32)
                        ^ (truncatedLow * HashMixing.GOLDEN_GAMMA)
                        ^ (adIdHash * H2_SALT)
                        ^ ~seed);
    }

    /**
     * The shard of a request, in {@code [0, shards)}: the leading 32 bits of its MD5 digest scaled by
     * multiply-shift. All ads of a request share it, and it only depends on bits inside every
     * allowed truncation.
     */
    public static int shardOf(long digestHigh, int shards) {
        checkArgument(shards > 0, "shards must be positive, but was %s", shards);
        return (int) (((digestHigh >>> 32) * shards) >>> 32);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FingerprintScheme)) {
            return false;
        }
        FingerprintScheme that = (FingerprintScheme) o;
        return keyBits == that.keyBits && seed == that.seed && adIdsKeyed == that.adIdsKeyed;
    }

    @Override
    public int hashCode() {
        return Objects.hash(keyBits, seed, adIdsKeyed);
    }

    @Override
    public String toString() {
        return "FingerprintScheme{keyBits=" + keyBits + ", seed=0x" + Long.toHexString(seed) + ", adIdsKeyed=" + adIdsKeyed + '}';
    }
}
