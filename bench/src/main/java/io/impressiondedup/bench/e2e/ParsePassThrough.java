package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupStage;
import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.operators.model.Impression;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * A dedup stage that keeps no state: the parsed impressions are keyed by shard exactly as the dedup
 * operator's input is, and every one of them passes. Used in place of the job's Bloom stage, it gives
 * the job's cost without its state (the parsing pass-through of the headline benchmark).
 */
final class ParsePassThrough {

    static final String UID = "parse-pass-through";

    private ParsePassThrough() {}

    static DedupStage stage() {
        return (impressions, config) -> {
            ShardKeySelector shardKeys = new ShardKeySelector(config.dedupSettings().plan().shards(), config.maxParallelism());
            DataStream<Impression> unique = impressions
                    .keyBy(shardKeys, Types.INT)
                    .map(impression -> impression, Impression.TYPE_INFO)
                    .uid(UID)
                    .name("Parse pass-through (no dedup)");
            return new DedupStage.Deduplicated(unique, null, null);
        };
    }
}
