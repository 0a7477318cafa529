package io.impressiondedup.state.serialization;

import io.impressiondedup.state.BucketFilters;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a shard's bucket directory.
 *
 * <p><b>Format v1 and v2:</b> {@code int} bucket count, then per bucket in ascending order its {@code long}
 * id and its filter in {@link ScalableBloomFilterSerializer}'s format of the same version (v2 adds the
 * filter's ad-id hash flag).
 */
public final class BucketFiltersSerializer extends VersionedSerializer<BucketFilters> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 2;
    public static final BucketFiltersSerializer INSTANCE = new BucketFiltersSerializer(CURRENT_VERSION);

    /** More live buckets than this is corruption: even 1-minute buckets with a day of retention stay below. */
    private static final int MAX_BUCKETS = 1 << 16;

    private final ScalableBloomFilterSerializer filterSerializer;

    BucketFiltersSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
        this.filterSerializer = new ScalableBloomFilterSerializer(formatVersion);
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
            filterSerializer.serialize(filters.filterAt(i), target);
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
            filters.put(bucket, filterSerializer.deserialize(source));
        }
        return filters;
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
