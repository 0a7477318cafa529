package io.impressiondedup.state.serialization;

import io.impressiondedup.state.bloom.PageGroup;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a {@link PageGroup} (the value of a page entry in keyed state).
 *
 * <p><b>Format v1:</b> {@code int} sub-page count, then per sub-page: {@code long} bucket id, {@code
 * byte} layer, {@code int} word count, the words as big-endian {@code long}s. Pages hold random bits,
 * so there is nothing to gain from compression. Which bits mean what is defined by the owning
 * filter's metadata ({@link ScalableBloomFilterSerializer}).
 */
public final class PageGroupSerializer extends VersionedSerializer<PageGroup> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final PageGroupSerializer INSTANCE = new PageGroupSerializer(CURRENT_VERSION);

    /** Sub-pages larger than this, or more of them than this, are corrupt data, not big filters. */
    private static final int MAX_WORDS = 1 << 16;
    private static final int MAX_SUB_PAGES = 1 << 12;

    PageGroupSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public PageGroup createInstance() {
        return new PageGroup();
    }

    @Override
    public PageGroup copy(PageGroup from) {
        return from.copy();
    }

    @Override
    public void serialize(PageGroup group, DataOutputView target) throws IOException {
        int count = group.size();
        long[] data = group.array();
        target.writeInt(count);
        for (int i = 0, offset = 1 + 2 * count; i < count; i++) {
            target.writeLong(group.bucketAt(i));
            target.writeByte(group.layerAt(i));
            int length = group.lengthAt(i);
            target.writeInt(length);
            for (int end = offset + length; offset < end; offset++) {
                target.writeLong(data[offset]);
            }
        }
    }

    /**
     * Reads the sub-pages straight into the group's one array ({@link PageGroup}, "Layout"), sized after the first sub-page's
     * length for every sub-page (they are of one geometry but for the last page of a filter), grown if later ones need more
     * and trimmed at the end if they needed less. A sub-page given twice is corrupt data.
     */
    @Override
    public PageGroup deserialize(DataInputView source) throws IOException {
        int count = source.readInt();
        if (count < 0 || count > MAX_SUB_PAGES) {
            throw new IOException("Corrupt Bloom page group: " + count + " sub-pages");
        }
        long[] data = null;
        int words = 1 + 2 * count;
        for (int i = 0; i < count; i++) {
            long bucket = source.readLong();
            int layer = source.readUnsignedByte();
            int length = source.readInt();
            if (length < 0 || length > MAX_WORDS) {
                throw new IOException("Corrupt Bloom page group: sub-page of " + length + " words");
            }
            if (bucket < -(1L << 55) || bucket >= (1L << 55)) {
                throw new IOException("Corrupt Bloom page group: bucket id " + bucket + " does not fit 56 bits");
            }
            if (data == null) {
                // Sized by what the first sub-pages say, never by the count alone: corrupt data must not allocate gigabytes.
                data = new long[words + Math.min(count, 8) * length];
                data[0] = count;
            } else if (data.length < words + length) {
                data = Arrays.copyOf(data, Math.max(words + length, data.length * 2));
            }
            long owner = (bucket << 8) | layer;
            for (int j = 0; j < i; j++) {
                if (data[1 + 2 * j] == owner) {
                    throw new IOException("Corrupt Bloom page group: sub-page of bucket " + bucket + ", layer " + layer + " twice");
                }
            }
            data[1 + 2 * i] = owner;
            data[2 + 2 * i] = length;
            for (int w = 0; w < length; w++) {
                data[words++] = source.readLong();
            }
        }
        if (data == null) {
            return new PageGroup();
        }
        return PageGroup.ofLayout(data.length == words ? data : Arrays.copyOf(data, words));
    }

    @Override
    public TypeSerializerSnapshot<PageGroup> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link PageGroupSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<PageGroup> {
        public Snapshot() {
            super(CURRENT_VERSION, PageGroupSerializer::new);
        }
    }
}
