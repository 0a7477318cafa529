package io.impressiondedup.tools;

/**
 * An impression of the history as the dedup operator sees it: its shard, event time, request-id digest and
 * ad-id hash. A Flink POJO (public fields, no-argument constructor): never serialized with Kryo.
 */
public final class HistoryImpression {

    public int shard;
    public long eventTime;
    public long digestHigh;
    public long digestLow;
    public long adIdHash;

    public HistoryImpression() {}

    public HistoryImpression(int shard, long eventTime, long digestHigh, long digestLow, long adIdHash) {
        this.shard = shard;
        this.eventTime = eventTime;
        this.digestHigh = digestHigh;
        this.digestLow = digestLow;
        this.adIdHash = adIdHash;
    }
}
