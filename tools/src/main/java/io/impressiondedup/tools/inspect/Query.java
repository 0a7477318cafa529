package io.impressiondedup.tools.inspect;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.io.Serializable;

/**
 * One impression to look up in a savepoint, with the identity the job's parser would give it: the digest of
 * its request id ({@link RequestIdDigester}, keyed by the job's fingerprint secret if it has one), the hashes
 * of its ad id (unkeyed, and keyed by the secret: 0 without one) and its shard. Travels inside the inspect job's reader function, never in state.
 *
 * @param index the query's position in its input (answers are printed in that order)
 */
public record Query(int index, String requestId, String adId, long eventTime, long digestHigh, long digestLow, long keyedAdIdHash,
        int shard)
        implements Serializable {

    /**
     * The query for an impression, digested by {@code digester} and its ad id hashed with {@code secret}'s key (null
     * without a secret, the same the digester holds) as the job's parser does, for a state of {@code shards}.
     */
    public static Query of(int index, String requestId, String adId, long eventTime, RequestIdDigester digester,
            FingerprintSecret secret, int shards) {
        digester.digest(requestId);
        return new Query(index, requestId, adId, eventTime, digester.high(), digester.low(),
                secret == null ? 0L : secret.keyedAdIdHash(adId), FingerprintScheme.shardOf(digester.high(), shards));
    }

    /** {@link HashMixing#adIdHash} of the ad id. */
    public long adIdHash() {
        return HashMixing.adIdHash(adId);
    }
}
