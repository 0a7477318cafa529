package io.impressiondedup.state.serialization;

import io.impressiondedup.state.bloom.PageGroup;
import java.io.IOException;
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
        target.writeInt(group.size());
        for (int i = 0; i < group.size(); i++) {
            target.writeLong(group.bucketAt(i));
            target.writeByte(group.layerAt(i));
            long[] words = group.pageAt(i);
            target.writeInt(words.length);
            for (long word : words) {
                target.writeLong(word);
            }
        }
    }

    @Override
    public PageGroup deserialize(DataInputView source) throws IOException {
        int count = source.readInt();
        if (count < 0 || count > MAX_SUB_PAGES) {
            throw new IOException("Corrupt Bloom page group: " + count + " sub-pages");
        }
        PageGroup group = new PageGroup();
        for (int i = 0; i < count; i++) {
            long bucket = source.readLong();
            int layer = source.readUnsignedByte();
            int length = source.readInt();
            if (length < 0 || length > MAX_WORDS) {
                throw new IOException("Corrupt Bloom page group: sub-page of " + length + " words");
            }
            long[] words = new long[length];
            for (int w = 0; w < length; w++) {
                words[w] = source.readLong();
            }
            group.put(bucket, layer, words);
        }
        return group;
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
