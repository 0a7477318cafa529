package io.impressiondedup.tools.inspect;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.BloomBlock;
import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Inspects each shard where its state is, inside the State Processor API job: reports its directory, and
 * either the figures of its filters (one pass over its pages: popcounts per block) or the verdicts of the
 * queries of this shard (one page group read per query and bucket geometry, as the operator reads). Only
 * these small results leave the job; a production state of ~128 GiB is never collected into the client.
 */
final class ShardInspector extends KeyedStateReaderFunction<Integer, ShardInspection> {

    private static final long serialVersionUID = 1L;

    private final ShardKeys shardKeys;
    private final QueryDecision decision;
    /** The queries by shard; empty in statistics mode. */
    private final Map<Integer, List<Query>> queriesByShard;
    private final boolean statistics;

    private transient ValueState<BucketFilters> directoryState;
    private transient MapState<Long, PageGroup> pageState;
    private transient MapState<Long, FingerprintPage> fingerprintPageState;

    /** Statistics mode: the figures of every filter. */
    static ShardInspector statistics(ShardKeys shardKeys) {
        return new ShardInspector(shardKeys, null, Map.of(), true);
    }

    /** Query mode: the verdict of each query, in the shard it belongs to. */
    static ShardInspector queries(ShardKeys shardKeys, QueryDecision decision, List<Query> queries) {
        Map<Integer, List<Query>> byShard = new HashMap<>();
        for (Query query : queries) {
            byShard.computeIfAbsent(query.shard(), s -> new ArrayList<>()).add(query);
        }
        return new ShardInspector(shardKeys, decision, byShard, false);
    }

    private ShardInspector(ShardKeys shardKeys, QueryDecision decision, Map<Integer, List<Query>> queriesByShard, boolean statistics) {
        this.shardKeys = shardKeys;
        this.decision = decision;
        this.queriesByShard = queriesByShard;
        this.statistics = statistics;
    }

    @Override
    public void open(OpenContext openContext) {
        directoryState = getRuntimeContext().getState(DedupStateLayout.directory());
        pageState = getRuntimeContext().getMapState(DedupStateLayout.pages());
        fingerprintPageState = getRuntimeContext().getMapState(DedupStateLayout.fingerprintPages());
    }

    @Override
    public void readKey(Integer key, Context context, Collector<ShardInspection> out) throws Exception {
        int shard = shardKeys.shardOf(key);
        BucketFilters directory = directoryState.value();
        ShardInspection inspection = new ShardInspection();
        inspection.shard = shard;
        inspection.directory = directory == null ? null : ShardEntry.directory(shard, directory).value;
        inspection.buckets = statistics && directory != null ? figures(shard, directory) : new BucketFigures[0];
        List<Query> queries = queriesByShard.getOrDefault(shard, List.of());
        inspection.verdicts = new QueryVerdict[queries.size()];
        FormatStores stores = FormatStores.uncached(pageState, fingerprintPageState, null, shardKeys.shards());
        for (int i = 0; i < queries.size(); i++) {
            inspection.verdicts[i] = decision.decide(queries.get(i), directory, stores);
        }
        out.collect(inspection);
    }

    /**
     * The figures of each of the shard's filters: metadata from the directory; a Bloom filter's bits from one pass
     * over the page groups, a fingerprint bucket's distinct fingerprints (bands and overflow, per part) and encoded bytes
     * from one pass over the fingerprint pages (its exact count, which must equal the directory's).
     */
    private BucketFigures[] figures(int shard, BucketFilters directory) throws Exception {
        int size = directory.size();
        BucketFigures[] figures = new BucketFigures[size];
        double[][] layerFill = new double[size][];
        // Per fingerprint part: {values in its bands, values in its overflow sections}, counted in the pages.
        Map<FingerprintPart, long[]> partCounts = new IdentityHashMap<>();
        for (int i = 0; i < size; i++) {
            BucketFilter bucketFilter = directory.filterAt(i);
            BucketFigures f = new BucketFigures();
            f.shard = shard;
            f.bucket = directory.bucketAt(i);
            f.format = bucketFilter.format().optionValue();
            f.inserted = bucketFilter.inserted();
            f.capacity = bucketFilter.initialCapacity();
            f.fill = bucketFilter.loadFactor();
            f.estimatedFpp = bucketFilter.estimatedFpp();
            figures[i] = f;
            layerFill[i] = new double[0];
            if (bucketFilter instanceof FingerprintBucket fingerprints) {
                f.parts = fingerprints.parts().size();
                for (FingerprintPart part : fingerprints.parts()) {
                    partCounts.put(part, new long[2]);
                    f.maxBand = Math.max(f.maxBand, part.inserted() == 0 ? 0 : part.sizing().bandFor(part.inserted() - 1));
                }
                continue;
            }
            ScalableBloomFilter filter = (ScalableBloomFilter) bucketFilter;
            f.layers = filter.layerCount();
            for (BloomLayer layer : filter.layers()) {
                f.bitsTotal += layer.geometry().bits();
            }
            f.bytes = filter.bytes();
            layerFill[i] = new double[filter.layerCount()];
        }
        for (Map.Entry<Long, FingerprintPage> entry : fingerprintPageState.entries()) {
            FingerprintPage page = entry.getValue();
            for (int j = 0; j < page.sectionCount(); j++) {
                int index = indexOf(directory, page.bucketAt(j));
                FingerprintPart part = index < 0 || !(directory.filterAt(index) instanceof FingerprintBucket fingerprints)
                        ? null : fingerprints.partOfPage(entry.getKey());
                if (part == null) {
                    continue; // a section of no live fingerprint part; the operator never leaves one
                }
                EliasFanoSection section = page.sectionAt(j);
                boolean overflow = page.bandAt(j) == FingerprintStoreSizing.OVERFLOW_BAND;
                partCounts.get(part)[overflow ? 1 : 0] += section.count();
                figures[index].fingerprints += section.count();
                figures[index].overflowed += overflow ? section.count() : 0;
                figures[index].storedBytes += (section.encodedBits() + Byte.SIZE - 1) / Byte.SIZE;
            }
        }
        for (Map.Entry<Long, PageGroup> entry : pageState.entries()) {
            PageGroup group = entry.getValue();
            for (int j = 0; j < group.size(); j++) {
                int index = indexOf(directory, group.bucketAt(j));
                int layer = group.layerAt(j);
                if (index < 0 || !(directory.filterAt(index) instanceof ScalableBloomFilter filter) || layer >= filter.layerCount()) {
                    continue; // a page of no live filter; the operator never leaves one (dropBucket removes pages first)
                }
                long[] words = group.pageAt(j);
                int probes = filter.layers().get(layer).geometry().probes();
                for (int block = 0; block + BloomBlock.WORDS <= words.length; block += BloomBlock.WORDS) {
                    int set = 0;
                    for (int w = block; w < block + BloomBlock.WORDS; w++) {
                        set += Long.bitCount(words[w]);
                    }
                    figures[index].bitsSet += set;
                    layerFill[index][layer] += Math.pow((double) set / BloomBlock.BITS, probes);
                }
                figures[index].storedBytes += (long) words.length * Long.BYTES;
            }
        }
        for (int i = 0; i < size; i++) {
            if (directory.filterAt(i) instanceof FingerprintBucket fingerprints) {
                double worst = 0; // the FPP of the values counted in the pages, per part against its own sizing
                for (FingerprintPart part : fingerprints.parts()) {
                    long[] counted = partCounts.get(part);
                    worst = Math.max(worst, part.sizing().bucketFpp(counted[0], counted[1]));
                }
                figures[i].fillFpp = worst;
                continue;
            }
            List<BloomLayer> layers = ((ScalableBloomFilter) directory.filterAt(i)).layers();
            double allNegative = 1.0;
            for (int layer = 0; layer < layers.size(); layer++) {
                BloomGeometry geometry = layers.get(layer).geometry();
                allNegative *= 1.0 - layerFill[i][layer] / geometry.numBlocks();
            }
            figures[i].fillFpp = 1.0 - allNegative;
        }
        return figures;
    }

    private static int indexOf(BucketFilters directory, long bucket) {
        int index = directory.firstIndexAtOrAfter(bucket);
        return index < directory.size() && directory.bucketAt(index) == bucket ? index : -1;
    }
}
