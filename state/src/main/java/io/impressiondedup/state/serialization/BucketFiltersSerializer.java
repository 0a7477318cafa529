package io.impressiondedup.state.serialization;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a shard's bucket directory.
 *
 * <p><b>Format v4</b> (fingerprint buckets in parts, with overflow counts): as v3, with each fingerprint bucket in
 * {@link FingerprintBucketFormat}'s v2.
 *
 * <p><b>Format v3</b> (buckets in either {@link io.impressiondedup.state.StateFormat}): {@code int} bucket count,
 * then per bucket in ascending order its {@code long} id, a {@code byte} format tag ({@value #TAG_BLOOM} Bloom,
 * {@value #TAG_FINGERPRINTS} fingerprints) and the bucket's metadata: a Bloom filter in {@link
 * ScalableBloomFilterSerializer}'s format v2, a fingerprint bucket in {@link FingerprintBucketFormat}'s v1.
 *
 * <p><b>Format v1 and v2</b> (Bloom only): {@code int} bucket count, then per bucket in ascending order its
 * {@code long} id and its filter in {@link ScalableBloomFilterSerializer}'s format of the same version (v2 adds
 * the filter's ad-id hash flag).
 *
 * <p>A job that reads at most v{@code n} refuses a higher directory format when it restores ({@link VersionedSerializerSnapshot}:
 * "reads format versions 1..n, but the checkpoint has version n+1"), before any record: a job reading at most v2 cannot
 * misread fingerprint buckets as missing, one reading at most v3 cannot read a bucket's parts as one, nor meet the
 * overflow band of a fingerprint page. A directory of a lower format is migrated on restore (Flink reads it with its
 * version's serializer and writes the current format). The way back (a new savepoint from history) is in
 * deploy/README.md; which state version holds which directory format: docs/COMPATIBILITY.md.
 */
public final class BucketFiltersSerializer extends VersionedSerializer<BucketFilters> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 4;
    static final int TAG_BLOOM = 0;
    static final int TAG_FINGERPRINTS = 1;
    public static final BucketFiltersSerializer INSTANCE = new BucketFiltersSerializer(CURRENT_VERSION);

    /** More live buckets than this is corruption: even 1-minute buckets with a day of retention stay below. */
    private static final int MAX_BUCKETS = 1 << 16;

    private final ScalableBloomFilterSerializer filterSerializer;

    BucketFiltersSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
        this.filterSerializer = new ScalableBloomFilterSerializer(Math.min(formatVersion, ScalableBloomFilterSerializer.CURRENT_VERSION));
    }

    @Override
    public BucketFilters createInstance() {
        return new BucketFilters();
    }

    @Override
    public BucketFilters copy(BucketFilters from) {
        return from.copy();
    }

    @Override
    public void serialize(BucketFilters filters, DataOutputView target) throws IOException {
        target.writeInt(filters.size());
        for (int i = 0; i < filters.size(); i++) {
            target.writeLong(filters.bucketAt(i));
            BucketFilter filter = filters.filterAt(i);
            if (formatVersion() < 3) {
                if (!(filter instanceof ScalableBloomFilter)) {
                    throw new IOException("Bucket directory format " + formatVersion() + " cannot hold bucket " + filters.bucketAt(i)
                            + " in the fingerprint format");
                }
                filterSerializer.serialize((ScalableBloomFilter) filter, target);
            } else if (filter instanceof ScalableBloomFilter) {
                target.writeByte(TAG_BLOOM);
                filterSerializer.serialize((ScalableBloomFilter) filter, target);
            } else {
                target.writeByte(TAG_FINGERPRINTS);
                FingerprintBucketFormat.write((FingerprintBucket) filter, target,
                        formatVersion() == 3 ? FingerprintBucketFormat.VERSION_1 : FingerprintBucketFormat.VERSION_2);
            }
        }
    }

    @Override
    public BucketFilters deserialize(DataInputView source) throws IOException {
        int count = source.readInt();
        if (count < 0 || count > MAX_BUCKETS) {
            throw new IOException("Corrupt bucket directory: " + count + " buckets");
        }
        BucketFilters filters = new BucketFilters();
        for (int i = 0; i < count; i++) {
            long bucket = source.readLong();
            filters.put(bucket, readFilter(source, bucket));
        }
        return filters;
    }

    private BucketFilter readFilter(DataInputView source, long bucket) throws IOException {
        if (formatVersion() < 3) {
            return filterSerializer.deserialize(source);
        }
        int tag = source.readUnsignedByte();
        switch (tag) {
            case TAG_BLOOM:
                return filterSerializer.deserialize(source);
            case TAG_FINGERPRINTS:
                return FingerprintBucketFormat.read(source);
            default:
                throw new IOException("Corrupt bucket directory: bucket " + bucket + " has format tag " + tag
                        + " (0 bloom, 1 fingerprints)");
        }
    }

    @Override
    public TypeSerializerSnapshot<BucketFilters> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link BucketFiltersSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<BucketFilters> {
        public Snapshot() {
            super(CURRENT_VERSION, BucketFiltersSerializer::new);
        }
    }
}
