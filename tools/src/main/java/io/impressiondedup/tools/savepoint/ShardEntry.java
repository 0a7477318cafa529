package io.impressiondedup.tools.savepoint;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.PageGroup;
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
 * the shard's bucket directory ({@link #address} = {@link #DIRECTORY}) or one page group (its {@code
 * PageAddress}), with its value in the state's own serialized form.
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
    /** The value, serialized by {@link BucketFiltersSerializer} or {@link PageGroupSerializer}. */
    public byte[] value;

    public ShardEntry() {}

    public ShardEntry(int shard, long address, byte[] value) {
        this.shard = shard;
        this.address = address;
        this.value = value;
    }

    public static ShardEntry directory(int shard, BucketFilters directory) {
        return new ShardEntry(shard, DIRECTORY, serialize(directory, null));
    }

    public static ShardEntry pageGroup(int shard, long address, PageGroup group) {
        return new ShardEntry(shard, address, serialize(null, group));
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
        if (isDirectory()) {
            throw new IllegalStateException("Entry " + this + " is a directory, not a page group");
        }
        try {
            return PageGroupSerializer.INSTANCE.deserialize(new DataInputDeserializer(value));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read page group " + address + " of shard " + shard, e);
        }
    }

    /** The same entry under another shard. */
    public ShardEntry withShard(int newShard) {
        return new ShardEntry(newShard, address, value);
    }

    private static byte[] serialize(BucketFilters directory, PageGroup group) {
        DataOutputSerializer out = new DataOutputSerializer(256);
        try {
            if (directory != null) {
                BucketFiltersSerializer.INSTANCE.serialize(directory, out);
            } else {
                PageGroupSerializer.INSTANCE.serialize(group, out);
            }
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
        return shard == that.shard && address == that.address && Arrays.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(shard, address) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "ShardEntry{shard=" + shard + ", " + (isDirectory() ? "directory" : "page group " + address) + ", "
                + (value == null ? 0 : value.length) + " bytes}";
    }
}
