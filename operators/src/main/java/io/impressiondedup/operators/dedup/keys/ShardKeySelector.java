package io.impressiondedup.operators.dedup.keys;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.identity.FingerprintScheme;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys an impression by the shard of its request id: a function of the leading 32 bits of the MD5
 * digest computed at the source, so every ad of one request lands in one shard, and time-based or
 * sequential request ids spread as evenly as random ones. Flink calls a key selector twice per record
 * (to route it, then to set the key context); this one only reads a field and a table.
 */
public final class ShardKeySelector implements KeySelector<Impression, Integer> {

    private static final long serialVersionUID = 1L;

    private final ShardKeys shardKeys;

    public ShardKeySelector(ShardKeys shardKeys) {
        this.shardKeys = shardKeys;
    }

    public ShardKeySelector(int shards, int maxParallelism) {
        this(new ShardKeys(shards, maxParallelism));
    }

    @Override
    public Integer getKey(Impression impression) {
        return shardKeys.keyOf(FingerprintScheme.shardOf(impression.digestHigh(), shardKeys.shards()));
    }

    public ShardKeys shardKeys() {
        return shardKeys;
    }
}
