package io.impressiondedup.tools.bootstrap;

/**
 * Up to {@link ShardBatcher#BATCH_SIZE} impressions of the history of one shard, in the order they came, as
 * columns ({@link HistoryImpression}'s fields but the shard). A Flink POJO (public fields, no-argument
 * constructor): never serialized with Kryo.
 */
public final class HistoryBatch {

    public int shard;
    public int size;
    public long[] eventTime;
    public long[] digestHigh;
    public long[] digestLow;
    public long[] adIdHash;
    public long[] keyedAdIdHash;

    public HistoryBatch() {}

    HistoryBatch(int shard, int capacity) {
        this.shard = shard;
        this.eventTime = new long[capacity];
        this.digestHigh = new long[capacity];
        this.digestLow = new long[capacity];
        this.adIdHash = new long[capacity];
        this.keyedAdIdHash = new long[capacity];
    }

    void add(HistoryImpression impression) {
        eventTime[size] = impression.eventTime;
        digestHigh[size] = impression.digestHigh;
        digestLow[size] = impression.digestLow;
        adIdHash[size] = impression.adIdHash;
        keyedAdIdHash[size] = impression.keyedAdIdHash;
        size++;
    }

    boolean isFull() {
        return size == eventTime.length;
    }

    /** This batch with columns as long as its impressions: what is shuffled is serialized whole. */
    HistoryBatch trimmed() {
        if (isFull()) {
            return this;
        }
        HistoryBatch trimmed = new HistoryBatch();
        trimmed.shard = shard;
        trimmed.size = size;
        trimmed.eventTime = java.util.Arrays.copyOf(eventTime, size);
        trimmed.digestHigh = java.util.Arrays.copyOf(digestHigh, size);
        trimmed.digestLow = java.util.Arrays.copyOf(digestLow, size);
        trimmed.adIdHash = java.util.Arrays.copyOf(adIdHash, size);
        trimmed.keyedAdIdHash = java.util.Arrays.copyOf(keyedAdIdHash, size);
        return trimmed;
    }
}
