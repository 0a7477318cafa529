package io.impressiondedup.tools;

import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.fingerprint.HashMixing;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
import java.io.Serializable;

/**
 * One impression to look up in a savepoint, with the identity the job's parser would give it: the digest of
 * its request id ({@link RequestIdDigester}, keyed by the job's fingerprint secret if it has one), the hash
 * of its ad id and its shard. Travels inside the inspect job's reader function, never in state.
 *
 * @param index the query's position in its input (answers are printed in that order)
 */
public record Query(int index, String requestId, String adId, long eventTime, long digestHigh, long digestLow, int shard)
        implements Serializable {

    /** The query for an impression, digested by {@code digester} as the job's parser does, for a state of {@code shards}. */
    public static Query of(int index, String requestId, String adId, long eventTime, RequestIdDigester digester, int shards) {
        digester.digest(requestId);
        return new Query(index, requestId, adId, eventTime, digester.high(), digester.low(),
                FingerprintScheme.shardOf(digester.high(), shards));
    }

    public long adIdHash() {
        return HashMixing.adIdHash(adId);
    }
}
