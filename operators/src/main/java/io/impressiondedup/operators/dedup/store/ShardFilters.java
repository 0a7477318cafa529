package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;

/**
 * The filter work of one impression against its shard's buckets: where a copy of it is, and inserting
 * it into a bucket's filter (created on first use). The one implementation of both, used by the
 * dedup operator for every record and by the state tools' {@code bootstrap}, which must build exactly
 * the filters the operator would have built from the same impressions.
 *
 * <p><b>Two formats.</b> Each bucket is in the {@link StateFormat} it was created in ({@link BucketFilter#format()}):
 * a Bloom filter's bits are in the Bloom page groups ({@link BloomStore}), a fingerprint bucket's sections
 * in the fingerprint pages ({@link FingerprintStore}); {@link FormatStores} picks the store. A lookup asks each bucket in its own format, so a
 * shard holding both while a change of {@code --state-format} works through the retention answers exactly as
 * each format alone would; a new bucket takes the plan's format ({@link DedupPlan#stateFormat()}). Both formats
 * hash a record alike (the probe hashes of its bucket's scheme): a Bloom filter probes with h1 and h2, the
 * fingerprint store takes its page from h1 and its value from h2 ({@link FingerprintStoreSizing}).
 *
 * <p><b>Shard state cap.</b> A bucket over its planned capacity grows, keeping the FPP (a Bloom filter adds a layer,
 * {@link ScalableBloomFilter}; a fingerprint part opens a band, {@code FingerprintPart}), until the growth of all of its
 * shard's buckets together would exceed the shard's growth allowance: the shard state cap ({@code --shard-state-cap}, 8x
 * the shard's planned state by default) less its planned state ({@link DedupPlan#shardGrowthAllowanceBytes()}; in the
 * fingerprint format less one more planned state, kept for the overflow sections: {@code
 * FingerprintStoreSizing#shardGrowthAllowanceBytes}). Past it <b>the shard trades FPP for memory</b>: its Bloom filters
 * add no layer and their newest layer over-fills; its fingerprint buckets open no band and take further values in their
 * overflow sections, which never grow past the bucket's planned state. Unique impressions of that shard are then
 * wrongly dropped at a rate above the configured FPP, rising with every further insert (the {@code estimated-fpp} gauge
 * shows it), while every other shard keeps its FPP and the job's memory stays bounded. Without the cap one request id
 * with millions of ad ids (all its ads share a shard) grows one bucket without bound. Each capped insert is counted
 * ({@code capped-insertions}); the first one of each shard and bucket is logged as a warning ({@code FilterGrowthWarnings}).
 *
 * <p>Per record: {@link #beginRecord} with the impression's digest and both ad-id hashes, then {@link
 * #bucketHolding} and, on a miss, {@link #insert}. Probe hashes are computed once per fingerprint
 * scheme ({@link RecordHashes}). The shard's key must be current, and the stores begun on the record's shard
 * ({@link FormatStores#beginRecord}). Not thread-safe: one per operator or
 * function instance.
 *
 * <p><b>Which ad-id hash.</b> Each filter is probed with the ad-id hash its scheme was written with
 * ({@link FingerprintScheme#adIdHash}): a job with a secret creates keyed filters and still finds what
 * its unkeyed filters of Bloom filter format v1 (state v2, v3) hold. A keyed filter always meets a record with a keyed hash: only a
 * job with a secret creates one, and a job restored without that secret onto state written with it is
 * refused before its first record ({@code FingerprintCheck}), so a keyed hash of 0 from a job without a
 * secret never reaches a keyed filter.
 */
public final class ShardFilters implements FormatStore.GrowthRoom {

    private final DedupPlan plan;
    private final TimeBuckets buckets;
    private final RecordHashes hashes = new RecordHashes();
    private boolean createdFilter;
    // The shard and stores of the insert in progress, for bytesLeft().
    private BucketFilters insertDirectory;
    private FormatStores insertStores;

    public ShardFilters(DedupPlan plan) {
        this.plan = plan;
        this.buckets = plan.timeBuckets().copy(); // its bucket cache is not shared between threads
    }

    private ShardFilters(TimeBuckets buckets) {
        this.plan = null;
        this.buckets = buckets.copy();
    }

    /**
     * For {@link #bucketHolding} only (the state tools' {@code inspect}, which reads filters and never creates
     * one, so needs the time rules but not the sizing plan): {@link #insert} throws.
     */
    public static ShardFilters lookupsOnly(TimeBuckets buckets) {
        return new ShardFilters(buckets);
    }

    /**
     * Starts a record: its request-id digest, {@code HashMixing.adIdHash} of its ad id, and {@code
     * FingerprintSecret#keyedAdIdHash} of it (any value, e.g. 0, for a job without a secret: no filter takes it).
     */
    public void beginRecord(long digestHigh, long digestLow, long unkeyedAdIdHash, long keyedAdIdHash) {
        hashes.begin(digestHigh, digestLow, unkeyedAdIdHash, keyedAdIdHash);
    }

    /**
     * The bucket of {@code directory} whose filter holds the current record, checking the buckets that can
     * hold a copy within the retention of {@code eventTime} ({@link TimeBuckets#firstBucketToCheck} to {@link
     * TimeBuckets#lastBucketToCheck}), each in its own format's store; a late record is checked against live buckets only
     * (rule 5, an expired bucket whose timer has not fired yet is skipped). {@link TimeBuckets#NO_BUCKET} if none holds it.
     */
    public long bucketHolding(BucketFilters directory, FormatStores stores, long eventTime, boolean late, long watermark) {
        long last = buckets.lastBucketToCheck(eventTime);
        for (int i = directory.firstIndexAtOrAfter(buckets.firstBucketToCheck(eventTime)); i < directory.size(); i++) {
            long bucket = directory.bucketAt(i);
            if (bucket > last) {
                break;
            }
            if (late && !buckets.isLive(bucket, watermark)) {
                continue;
            }
            BucketFilter filter = directory.filterAt(i);
            if (stores.of(filter).mightContain(bucket, filter, hashes)) {
                return bucket;
            }
        }
        return TimeBuckets.NO_BUCKET;
    }

    /**
     * Inserts the current record, found absent, into {@code bucket}'s filter of {@code directory}, creating
     * the filter in the plan's format on first use ({@link #createdFilter()} then says so: the operator registers
     * its timers). A bucket over its plan grows while the shard's growth stays within the shard state cap, else trades
     * FPP for memory (class comment; each format's store says how): no insert fails, however concentrated the traffic.
     */
    public Insertion insert(BucketFilters directory, FormatStores stores, long bucket) {
        if (plan == null) {
            throw new IllegalStateException("ShardFilters.lookupsOnly cannot insert");
        }
        BucketFilter filter = directory.get(bucket);
        createdFilter = filter == null;
        if (createdFilter) {
            filter = stores.forNewBuckets().newBucket();
            directory.put(bucket, filter);
        }
        insertDirectory = directory;
        insertStores = stores;
        return stores.of(filter).insertAbsent(bucket, filter, hashes, this);
    }

    /** The growth bytes the shard of the insert in progress may still take, by the allowance of the plan's format. */
    @Override
    public long bytesLeft() {
        return insertStores.forNewBuckets().shardGrowthAllowance() - insertDirectory.growthBytes();
    }

    /** Whether the last {@link #insert} created its bucket's filter. */
    public boolean createdFilter() {
        return createdFilter;
    }
}
