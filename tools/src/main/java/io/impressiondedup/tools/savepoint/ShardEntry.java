package io.impressiondedup.tools.savepoint;

import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPageSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.serialization.BucketFiltersSerializer;
import io.impressiondedup.state.serialization.PageGroupSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * One entry of one shard's keyed dedup state, in flight between a savepoint read and a savepoint write:
 * the shard's bucket directory ({@link #address} = {@link #DIRECTORY}), one Bloom page group (its {@code
 * PageAddress}) or one fingerprint page ({@link #fingerprintPage} true, its {@code FingerprintBucket#pageKey}
 * key), with its value in the state's own serialized form.
 *
 * <p>A shard's state is streamed entry by entry rather than as one object: a shard of a production
 * deployment holds about a gigabyte, a page group about a kilobyte. A public POJO of primitives and a
 * byte array, so Flink serializes it with its POJO serializer, never with Kryo.
 */
public final class ShardEntry {

    /** The {@link #address} of a shard's bucket directory (page addresses are never negative). */
    public static final long DIRECTORY = -1;

    /** The shard (not its Flink key). */
    public int shard;
    /** {@link #DIRECTORY}, or the page group's {@code PageAddress}. */
    public long address;
    /** Whether the entry is a fingerprint page rather than a Bloom page group (never for the directory). */
    public boolean fingerprintPage;
    /** The value, serialized by {@link BucketFiltersSerializer}, {@link PageGroupSerializer} or {@link FingerprintPageSerializer}. */
    public byte[] value;

    public ShardEntry() {}

    public ShardEntry(int shard, long address, byte[] value) {
        this(shard, address, false, value);
    }

    public ShardEntry(int shard, long address, boolean fingerprintPage, byte[] value) {
        this.shard = shard;
        this.address = address;
        this.fingerprintPage = fingerprintPage;
        this.value = value;
    }

    public static ShardEntry directory(int shard, BucketFilters directory) {
        return new ShardEntry(shard, DIRECTORY, serialize(BucketFiltersSerializer.INSTANCE, directory));
    }

    public static ShardEntry pageGroup(int shard, long address, PageGroup group) {
        return new ShardEntry(shard, address, serialize(PageGroupSerializer.INSTANCE, group));
    }

    public static ShardEntry fingerprintPage(int shard, long key, FingerprintPage page) {
        return new ShardEntry(shard, key, true, serialize(FingerprintPageSerializer.INSTANCE, page));
    }

    public boolean isDirectory() {
        return address == DIRECTORY;
    }

    public BucketFilters directory() {
        if (!isDirectory()) {
            throw new IllegalStateException("Entry " + this + " is a page group, not a directory");
        }
        try {
            return BucketFiltersSerializer.INSTANCE.deserialize(new DataInputDeserializer(value));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the bucket directory of shard " + shard, e);
        }
    }

    public PageGroup pageGroup() {
        if (isDirectory() || fingerprintPage) {
            throw new IllegalStateException("Entry " + this + " is not a page group");
        }
        try {
            return PageGroupSerializer.INSTANCE.deserialize(new DataInputDeserializer(value));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read page group " + address + " of shard " + shard, e);
        }
    }

    public FingerprintPage fingerprintPage() {
        if (!fingerprintPage) {
            throw new IllegalStateException("Entry " + this + " is not a fingerprint page");
        }
        try {
            return FingerprintPageSerializer.INSTANCE.deserialize(new DataInputDeserializer(value));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read fingerprint page " + address + " of shard " + shard, e);
        }
    }

    /** The same entry under another shard. */
    public ShardEntry withShard(int newShard) {
        return new ShardEntry(newShard, address, fingerprintPage, value);
    }

    private static <T> byte[] serialize(TypeSerializer<T> serializer, T value) {
        DataOutputSerializer out = new DataOutputSerializer(256);
        try {
            serializer.serialize(value, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ShardEntry)) {
            return false;
        }
        ShardEntry that = (ShardEntry) o;
        return shard == that.shard && address == that.address && fingerprintPage == that.fingerprintPage
                && Arrays.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(shard, address) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "ShardEntry{shard=" + shard + ", " + (isDirectory() ? "directory" : (fingerprintPage ? "fingerprint page " : "page group ") + address) + ", "
                + (value == null ? 0 : value.length) + " bytes}";
    }
}
