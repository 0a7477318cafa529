package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.identity.FingerprintScheme;

/**
 * The hashes of the record being checked: its request-id digest, both ad-id hashes, and the two probe hashes under
 * the scheme a bucket was written with, computed once per scheme ({@link FingerprintScheme#probeHash1}, {@link
 * FingerprintScheme#probeHash2}). The filters of one job share one scheme, so a record is normally hashed once however
 * many buckets it is checked against; a Bloom filter of format v1 (restored from state v1-v3) hashes its ad ids unkeyed
 * and takes the other hash ({@link FingerprintScheme#adIdHash}).
 *
 * <p>Both formats hash a record alike: a Bloom filter probes with h1 and h2, the fingerprint store takes its page from
 * h1 and its value from h2. Not thread-safe: one per {@link ShardFilters}.
 */
public final class RecordHashes {

    private long digestHigh;
    private long digestLow;
    private long unkeyedAdIdHash;
    private long keyedAdIdHash;
    /** The scheme {@link #h1} and {@link #h2} were computed under, or {@code null} before the first. */
    private FingerprintScheme hashedScheme;
    private long h1;
    private long h2;

    /** Starts a record (see {@link ShardFilters#beginRecord}). */
    void begin(long digestHigh, long digestLow, long unkeyedAdIdHash, long keyedAdIdHash) {
        this.digestHigh = digestHigh;
        this.digestLow = digestLow;
        this.unkeyedAdIdHash = unkeyedAdIdHash;
        this.keyedAdIdHash = keyedAdIdHash;
        this.hashedScheme = null;
    }

    /** The high 64 bits of the request-id digest: the shard, and a merged shard's cell, come from it. */
    public long digestHigh() {
        return digestHigh;
    }

    /** Makes {@link #h1()} and {@link #h2()} the probe hashes of the record under {@code scheme}. */
    public void hashFor(FingerprintScheme scheme) {
        if (!scheme.equals(hashedScheme)) {
            long adIdHash = scheme.adIdHash(unkeyedAdIdHash, keyedAdIdHash);
            h1 = scheme.probeHash1(digestHigh, digestLow, adIdHash);
            h2 = scheme.probeHash2(digestHigh, digestLow, adIdHash);
            hashedScheme = scheme;
        }
    }

    /** The first probe hash under the scheme last given to {@link #hashFor}. */
    public long h1() {
        return h1;
    }

    /** The second probe hash under the scheme last given to {@link #hashFor}. */
    public long h2() {
        return h2;
    }
}
