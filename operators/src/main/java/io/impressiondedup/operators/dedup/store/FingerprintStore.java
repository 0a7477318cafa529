package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.state.MapState;

/**
 * The fingerprint format's store: each bucket a {@link FingerprintBucket} (its parts, each with its sizing), its
 * Elias-Fano sections in keyed {@code MapState} as {@link FingerprintPage}s keyed by {@link FingerprintBucket#pageKey}
 * (the store's page count, the page index).
 *
 * <p><b>Layout.</b> Every bucket of a shard in this format maps a record to the same page (its sizing's page count is the
 * plan's), so a lookup over all of them reads one entry and a unique record writes that entry back. The page count is part
 * of the key: buckets sized under another plan use other pages, never a page of the wrong count. A bucket of a merged shard
 * ({@code reshape} to fewer shards) has one part per old shard, and a record meets exactly the part its old shard wrote
 * ({@link FingerprintBucket#partHolding}).
 *
 * <p><b>Growth.</b> A part over plan opens its next band while the shard's open bands stay within its growth allowance
 * ({@link FingerprintStoreSizing#shardGrowthAllowanceBytes}); past it, or when the band's section in its page is as large
 * as a section may grow ({@link FingerprintPage#fitsOneMore}), the value goes to the part's overflow band, which never
 * grows past the bucket's planned state.
 */
public final class FingerprintStore extends PagedFormatStore<FingerprintPage> {

    /** The plan of new buckets, or {@code null} for a store that only looks up ({@code inspect}). */
    private final DedupPlan plan;
    /** The sizing of new buckets and of new parts of a bucket (a merged shard's cell without one). */
    private final FingerprintStoreSizing sizing;
    private final long shardGrowthAllowance;
    /** The job's shard count: a bucket in parts finds a record's part from it ({@link FingerprintBucket#partHolding}). */
    private final int shards;

    FingerprintStore(MapState<Long, FingerprintPage> state, PageCache<FingerprintPage> cache, DedupPlan plan, int shards,
            PageJournal journal) {
        super(new MapStatePages<>(state, cache, key -> "fingerprint page " + FingerprintBucket.pageIndexOf(key) + " of "
                + FingerprintBucket.pageCountOf(key), 4), journal);
        this.plan = plan;
        this.shards = shards;
        this.sizing = plan == null ? null : FingerprintStoreSizing.forPlan(plan);
        this.shardGrowthAllowance = plan == null ? 0 : sizing.shardGrowthAllowanceBytes(plan.shardStateCap(), plan.liveBuckets());
    }

    @Override
    public StateFormat format() {
        return StateFormat.FINGERPRINTS;
    }

    @Override
    public BucketFilter newBucket() {
        return FingerprintBucket.create(plan.fingerprintScheme(), sizing);
    }

    @Override
    public long shardGrowthAllowance() {
        return shardGrowthAllowance;
    }

    @Override
    public boolean mightContain(long bucket, BucketFilter filter, RecordHashes hashes) {
        FingerprintPart part = ((FingerprintBucket) filter).partHolding(hashes.digestHigh(), shards);
        if (part == null) {
            return false; // a cell of a merged shard without this bucket: nothing of it was inserted
        }
        hashes.hashFor(part.fingerprintScheme());
        FingerprintPage page = pages.read(part.pageKey(hashes.h1()));
        return page != null && page.mightContain(bucket, hashes.h2(), part.sizing());
    }

    @Override
    public Insertion insertAbsent(long bucket, BucketFilter filter, RecordHashes hashes, GrowthRoom room) {
        FingerprintBucket fingerprints = (FingerprintBucket) filter;
        FingerprintPart part = fingerprints.partFor(hashes.digestHigh(), shards, plan.fingerprintScheme(), sizing);
        hashes.hashFor(part.fingerprintScheme());
        FingerprintStoreSizing partSizing = part.sizing();
        long key = part.pageKey(hashes.h1());
        FingerprintPage page = pages.read(key);
        if (page == null) {
            page = new FingerprintPage();
        }
        // What the shard's growth bands may still take; only summed when the insert would open a band.
        int band = part.bandForInsert(part.needsGrowthRoom() ? room.bytesLeft() : 0);
        if (band != FingerprintStoreSizing.OVERFLOW_BAND && !page.fitsOneMore(bucket, band, partSizing.valueRange(band))) {
            band = FingerprintStoreSizing.OVERFLOW_BAND;
        }
        long range = partSizing.valueRange(bucket, band);
        long value = FingerprintStoreSizing.scale(hashes.h2(), range);
        if (!page.insertValue(bucket, band, value, range)) {
            return Insertion.INSERTED; // its value is in the section already: a lookup of this bucket finds it
        }
        Insertion insertion = part.recordInsert(band);
        pages.write(key, page);
        journal(bucket, fingerprints.parts().indexOf(part) << 8 | band, partSizing.pageOf(hashes.h1()), value);
        return insertion;
    }

    /** Journaled as the part's page and the section value: what the insert wrote, not the hashes it came from. */
    @Override
    public boolean journalsSmallNumbers() {
        return true;
    }

    @Override
    public void redo(long bucket, BucketFilter filter, int partAndBand, long page, long value) {
        FingerprintPart part = partOf(filter, partAndBand);
        if (part == null) {
            return;
        }
        int band = partAndBand & 0xFF;
        long key = part.pageKeyAt((int) page);
        FingerprintPage stored = pages.read(key);
        if (stored == null) {
            stored = new FingerprintPage();
        }
        if (stored.insertValue(bucket, band, value, part.sizing().valueRange(bucket, band))) {
            pages.write(key, stored);
        }
    }

    /** The page and section value the insert of {@code h1} and {@code h2} wrote, redone as {@link #redo} does. */
    @Override
    public void redoFromHashes(long bucket, BucketFilter filter, int partAndBand, long h1, long h2) {
        FingerprintPart part = partOf(filter, partAndBand);
        if (part != null) {
            long range = part.sizing().valueRange(bucket, partAndBand & 0xFF);
            redo(bucket, filter, partAndBand, part.sizing().pageOf(h1), FingerprintStoreSizing.scale(h2, range));
        }
    }

    /** The part a journal entry names ({@code partAndBand >>> 8}), or {@code null} if the bucket has no such part. */
    private static FingerprintPart partOf(BucketFilter filter, int partAndBand) {
        List<FingerprintPart> parts = ((FingerprintBucket) filter).parts();
        int index = partAndBand >>> 8;
        return index < parts.size() ? parts.get(index) : null;
    }

    @Override
    public void removeBucket(int shard, long bucket) {
        pages.removeBucket(page -> page.removeBucket(bucket), FingerprintPage::isEmpty, "the fingerprint sections of bucket " + bucket);
    }

    @Override
    public String growth(BucketFilter filter) {
        return "opened a fingerprint band (each band up to twice the one before, a few bits more per fingerprint)";
    }

    @Override
    public String capped(BucketFilter filter) {
        FingerprintBucket fingerprints = (FingerprintBucket) filter;
        return String.format(Locale.ROOT, "holds %d fingerprints, %.1fx its planned capacity of %d in its fullest part, and its next"
                        + " band would take this shard's fingerprint state past the shard state cap (--shard-state-cap %s x its"
                        + " planned state; or the bucket filled its last band). Further fingerprints of it go to its overflow"
                        + " sections, which never grow past the bucket's planned state: this shard keeps its size and drops unique"
                        + " impressions at a rate above the configured FPP, rising as they fill (gauge estimated-fpp)",
                fingerprints.inserted(), fingerprints.loadFactor(), fingerprints.initialCapacity(), plan.shardStateCap());
    }
}
