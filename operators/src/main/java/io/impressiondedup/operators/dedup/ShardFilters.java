package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;

/**
 * The filter work of one impression against its shard's buckets: where a copy of it is, and inserting
 * it into a bucket's filter (created on first use). The one implementation of both, used by {@link
 * DedupOperator} for every record and by the state tools' {@code bootstrap}, which must build exactly
 * the filters the operator would have built from the same impressions.
 *
 * <p><b>Two formats.</b> Each bucket is in the {@link StateFormat} it was created in ({@link BucketFilter#format()}):
 * a Bloom filter's bits are in the Bloom page groups ({@link MapStatePageGroups}), a fingerprint bucket's sections
 * in the fingerprint pages ({@link MapStateFingerprintPages}). A lookup asks each bucket in its own format, so a
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
 * ({@code capped-insertions}); the first one of each shard and bucket is logged as a warning ({@link FilterGrowthWarnings}).
 *
 * <p>Per record: {@link #beginRecord} with the impression's digest and both ad-id hashes, then {@link
 * #bucketHolding} and, on a miss, {@link #insert}. Probe hashes are computed once per fingerprint
 * scheme (the filters of one job share one, but for Bloom filters of format v1, restored from state v1-v3, whose
 * ad ids are hashed unkeyed). The shard's key must be current in the page store. Not thread-safe: one per operator or
 * function instance.
 *
 * <p><b>Which ad-id hash.</b> Each filter is probed with the ad-id hash its scheme was written with
 * ({@link FingerprintScheme#adIdHash}): a job with a secret creates keyed filters and still finds what
 * its unkeyed filters of Bloom filter format v1 (state v2, v3) hold. A keyed filter always meets a record with a keyed hash: only a
 * job with a secret creates one, and a job restored without that secret onto state written with it is
 * refused before its first record ({@code FingerprintCheck}), so a keyed hash of 0 from a job without a
 * secret never reaches a keyed filter.
 */
public final class ShardFilters {

    private final DedupPlan plan;
    private final TimeBuckets buckets;
    /**
     * The growth bytes a shard may take in the plan's format ({@link DedupPlan#shardGrowthAllowanceBytes()}, {@link
     * FingerprintStoreSizing#shardGrowthAllowanceBytes}), computed once.
     */
    private final long shardGrowthAllowance;
    /** The fingerprint sizing of new buckets and new parts of a bucket (a merged shard's cell without one). */
    private final FingerprintStoreSizing fingerprintSizing;
    /** The job's shard count: a bucket in parts finds a record's part from it ({@link FingerprintBucket#partHolding}). */
    private final int shards;

    private long digestHigh;
    private long digestLow;
    private long unkeyedAdIdHash;
    private long keyedAdIdHash;
    // Probe hashes of the current record under the last scheme asked for.
    private FingerprintScheme hashedScheme;
    private long h1;
    private long h2;
    private boolean createdFilter;

    public ShardFilters(DedupPlan plan) {
        this.plan = plan;
        this.buckets = plan.timeBuckets().copy(); // its bucket cache is not shared between threads
        this.fingerprintSizing = FingerprintStoreSizing.forPlan(plan);
        this.shardGrowthAllowance = plan.stateFormat() == StateFormat.FINGERPRINTS
                ? fingerprintSizing.shardGrowthAllowanceBytes(plan.shardStateCap(), plan.liveBuckets())
                : plan.shardGrowthAllowanceBytes();
        this.shards = plan.shards();
    }

    private ShardFilters(TimeBuckets buckets, int shards) {
        this.plan = null;
        this.buckets = buckets.copy();
        this.shardGrowthAllowance = 0;
        this.fingerprintSizing = null;
        this.shards = shards;
    }

    /**
     * For {@link #bucketHolding} only (the state tools' {@code inspect}, which reads filters and never creates
     * one, so needs the time rules and the shard count but not the sizing plan): {@link #insert} throws.
     */
    public static ShardFilters lookupsOnly(TimeBuckets buckets, int shards) {
        return new ShardFilters(buckets, shards);
    }

    /**
     * Starts a record: its request-id digest, {@code HashMixing.adIdHash} of its ad id, and {@code
     * FingerprintSecret#keyedAdIdHash} of it (any value, e.g. 0, for a job without a secret: no filter takes it).
     */
    public void beginRecord(long digestHigh, long digestLow, long unkeyedAdIdHash, long keyedAdIdHash) {
        this.digestHigh = digestHigh;
        this.digestLow = digestLow;
        this.unkeyedAdIdHash = unkeyedAdIdHash;
        this.keyedAdIdHash = keyedAdIdHash;
        this.hashedScheme = null;
    }

    /**
     * The bucket of {@code directory} whose filter holds the current record, checking the buckets that can
     * hold a copy within the retention of {@code eventTime} ({@link TimeBuckets#firstBucketToCheck} to {@link
     * TimeBuckets#lastBucketToCheck}); a late record is checked against live buckets only (rule 5, an expired
     * bucket whose timer has not fired yet is skipped). {@link TimeBuckets#NO_BUCKET} if none holds it.
     */
    public long bucketHolding(BucketFilters directory, MapStatePageGroups pages, MapStateFingerprintPages fingerprintPages,
            long eventTime, boolean late, long watermark) {
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
            if (filter instanceof ScalableBloomFilter bloom) {
                hash(bloom.fingerprintScheme());
                pages.select(bucket, bloom);
                if (bloom.mightContain(h1, h2, pages)) {
                    return bucket;
                }
            } else {
                FingerprintPart part = ((FingerprintBucket) filter).partHolding(digestHigh, shards);
                if (part == null) {
                    continue; // a cell of a merged shard without this bucket: nothing of it was inserted
                }
                hash(part.fingerprintScheme());
                FingerprintPage page = fingerprintPages.read(part.pageKey(h1));
                if (page != null && page.mightContain(bucket, h2, part.sizing())) {
                    return bucket;
                }
            }
        }
        return TimeBuckets.NO_BUCKET;
    }

    /**
     * Inserts the current record, found absent, into {@code bucket}'s filter of {@code directory}, creating
     * the filter in the plan's format on first use ({@link #createdFilter()} then says so: the operator registers
     * its timers). A full Bloom filter adds a layer while the shard's growth layers stay within the shard state
     * cap, else it over-fills ({@link ScalableBloomFilter#insertAbsent(long, long, io.impressiondedup.state.bloom.BloomPageStore, long)});
     * a fingerprint part over plan opens its next band on the same condition, else the record goes to its overflow band
     * ({@link FingerprintPart#bandForInsert}), as it does when the band's section in its page is as large as a section may
     * grow ({@link FingerprintPage#fitsOneMore}): no insert fails, however concentrated the traffic.
     */
    public Insertion insert(BucketFilters directory, MapStatePageGroups pages, MapStateFingerprintPages fingerprintPages, long bucket) {
        if (plan == null) {
            throw new IllegalStateException("ShardFilters.lookupsOnly cannot insert");
        }
        BucketFilter filter = directory.get(bucket);
        createdFilter = filter == null;
        if (createdFilter) {
            filter = plan.stateFormat() == StateFormat.FINGERPRINTS
                    ? FingerprintBucket.create(plan.fingerprintScheme(), fingerprintSizing)
                    : plan.newBucketFilter();
            directory.put(bucket, filter);
        }
        if (filter instanceof ScalableBloomFilter bloom) {
            hash(bloom.fingerprintScheme());
            pages.select(bucket, bloom);
            // What the shard's growth layers may still take; only summed when the filter needs a layer.
            long growthAllowance = bloom.needsLayer() ? shardGrowthAllowance - directory.growthBytes() : 0;
            return bloom.insertAbsent(h1, h2, pages, growthAllowance);
        }
        FingerprintPart part = ((FingerprintBucket) filter).partFor(digestHigh, shards, plan.fingerprintScheme(), fingerprintSizing);
        hash(part.fingerprintScheme());
        FingerprintStoreSizing sizing = part.sizing();
        long key = part.pageKey(h1);
        FingerprintPage page = fingerprintPages.read(key);
        if (page == null) {
            page = new FingerprintPage();
        }
        // What the shard's growth bands may still take; only summed when the insert would open a band.
        int band = part.bandForInsert(part.needsGrowthRoom() ? shardGrowthAllowance - directory.growthBytes() : 0);
        if (band != FingerprintStoreSizing.OVERFLOW_BAND && !page.fitsOneMore(bucket, band, sizing.valueRange(band))) {
            band = FingerprintStoreSizing.OVERFLOW_BAND;
        }
        if (!page.insert(bucket, band, h2, sizing)) {
            return Insertion.INSERTED; // its value is in the section already: a lookup of this bucket finds it
        }
        Insertion insertion = part.recordInsert(band);
        fingerprintPages.write(key, page);
        return insertion;
    }

    /** Whether the last {@link #insert} created its bucket's filter. */
    public boolean createdFilter() {
        return createdFilter;
    }

    private void hash(FingerprintScheme scheme) {
        if (!scheme.equals(hashedScheme)) {
            long adIdHash = scheme.adIdHash(unkeyedAdIdHash, keyedAdIdHash);
            h1 = scheme.probeHash1(digestHigh, digestLow, adIdHash);
            h2 = scheme.probeHash2(digestHigh, digestLow, adIdHash);
            hashedScheme = scheme;
        }
    }
}
