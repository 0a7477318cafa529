package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.store.BloomStore;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.tools.ToolEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Dedup state built on the heap the way the operator inserts (digest, shard, bucket of the event time, probe
 * hashes, {@link BloomStore} over a map), then written to a savepoint through the tools' {@link
 * DedupStateWriter} ({@link DedupSavepointWriter#entries}). The heap copy is the expectation tests compare with.
 */
public final class HeapDedupState {

    final DedupPlan plan;
    private final RequestIdDigester digester;
    private final FingerprintSecret secret;
    public final TreeMap<Integer, BucketFilters> directories = new TreeMap<>();
    final Map<Integer, Map<Long, PageGroup>> pages = new HashMap<>();

    public HeapDedupState(DedupPlan plan, FingerprintSecret secret) {
        this.plan = plan;
        this.digester = new RequestIdDigester(secret);
        this.secret = secret;
    }

    /** Inserts an impression unless its bucket's filter might already hold it; returns its shard. */
    public int insert(String requestId, String adId, long eventTime) {
        digester.digest(requestId);
        int shard = FingerprintScheme.shardOf(digester.high(), plan.shards());
        long bucket = plan.timeBuckets().bucketOf(eventTime);
        BucketFilters directory = directories.computeIfAbsent(shard, s -> new BucketFilters());
        ScalableBloomFilter filter = (ScalableBloomFilter) directory.get(bucket);
        if (filter == null) {
            filter = plan.newBucketFilter();
            directory.put(bucket, filter);
        }
        long adIdHash = filter.fingerprintScheme().adIdHash(HashMixing.adIdHash(adId), secret == null ? 0L : secret.keyedAdIdHash(adId));
        long h1 = filter.fingerprintScheme().probeHash1(digester.high(), digester.low(), adIdHash);
        long h2 = filter.fingerprintScheme().probeHash2(digester.high(), digester.low(), adIdHash);
        BloomStore store = BloomStore.uncached(new HeapMapState<>(pages.computeIfAbsent(shard, s -> new HashMap<>())));
        store.beginRecord(shard);
        store.select(bucket, filter);
        if (!filter.mightContain(h1, h2, store)) {
            filter.insertAbsent(h1, h2, store);
        }
        return shard;
    }

    /** Set bits of {@code bucket}'s filter in {@code shard}, counted in its pages. */
    public long bitsSet(int shard, long bucket) {
        long set = 0;
        for (PageGroup group : pages.getOrDefault(shard, Map.of()).values()) {
            for (int i = 0; i < group.size(); i++) {
                if (group.bucketAt(i) == bucket) {
                    for (long word : group.pageAt(i)) {
                        set += Long.bitCount(word);
                    }
                }
            }
        }
        return set;
    }

    /**
     * The FPP the set bits of {@code bucket}'s filter in {@code shard} give: per layer, the mean over its blocks of
     * (set bits / 512)^probes, compounded over the layers (1 - product of (1 - layer FPP)).
     */
    public double fillFpp(int shard, long bucket) {
        ScalableBloomFilter filter = (ScalableBloomFilter) directories.get(shard).get(bucket);
        double[] hits = new double[filter.layerCount()];
        for (PageGroup group : pages.getOrDefault(shard, Map.of()).values()) {
            for (int i = 0; i < group.size(); i++) {
                if (group.bucketAt(i) != bucket) {
                    continue;
                }
                int probes = filter.layers().get(group.layerAt(i)).geometry().probes();
                long[] words = group.pageAt(i);
                for (int block = 0; block < words.length / 8; block++) {
                    int set = 0;
                    for (int w = 0; w < 8; w++) {
                        set += Long.bitCount(words[block * 8 + w]);
                    }
                    hits[group.layerAt(i)] += Math.pow(set / 512.0, probes);
                }
            }
        }
        double allNegative = 1;
        for (int layer = 0; layer < hits.length; layer++) {
            allNegative *= 1 - hits[layer] / filter.layers().get(layer).geometry().numBlocks();
        }
        return 1 - allNegative;
    }

    /** Writes the state as a savepoint of the dedup operator under {@code dir}; returns its path. */
    public String write(Path dir, int maxParallelism, Long fingerprintCheck, Long latenessWatermark) throws Exception {
        List<ShardEntry> entries = new ArrayList<>();
        directories.forEach((shard, directory) -> {
            entries.add(ShardEntry.directory(shard, directory));
            pages.getOrDefault(shard, Map.of()).forEach((address, group) -> entries.add(ShardEntry.pageGroup(shard, address, group)));
        });
        String savepoint = dir.resolve("savepoint").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(entries),
                        new ShardKeys(plan.shards(), maxParallelism), fingerprintCheck, latenessWatermark, null))
                .write(savepoint);
        env.execute("write test savepoint");
        return savepoint;
    }
}
