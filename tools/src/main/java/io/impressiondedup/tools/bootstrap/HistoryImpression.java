package io.impressiondedup.tools.bootstrap;

/**
 * An impression of the history as the dedup operator sees it: its shard, event time, request-id digest and
 * ad-id hashes (unkeyed, and keyed by the fingerprint secret: 0 without one). A Flink POJO (public fields, no-argument constructor): never serialized with Kryo.
 */
public final class HistoryImpression {

    public int shard;
    public long eventTime;
    public long digestHigh;
    public long digestLow;
    /** {@code HashMixing.adIdHash} of the ad id. */
    public long adIdHash;
    /** {@code FingerprintSecret#keyedAdIdHash} of the ad id; 0 without a secret. */
    public long keyedAdIdHash;

    public HistoryImpression() {}

    public HistoryImpression(int shard, long eventTime, long digestHigh, long digestLow, long adIdHash, long keyedAdIdHash) {
        this.shard = shard;
        this.eventTime = eventTime;
        this.digestHigh = digestHigh;
        this.digestLow = digestLow;
        this.adIdHash = adIdHash;
        this.keyedAdIdHash = keyedAdIdHash;
    }
}
