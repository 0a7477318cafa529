package io.impressiondedup.state.serialization;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of one Bloom page (the value of a page entry in keyed state).
 *
 * <p><b>Format v1:</b> {@code int} word count, then the words as big-endian {@code long}s. Pages hold
 * random bits, so there is nothing to gain from compression. Which bits mean what is defined by the
 * page's filter ({@link ScalableBloomFilterSerializer}), not here.
 */
public final class BloomPageSerializer extends VersionedSerializer<long[]> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final BloomPageSerializer INSTANCE = new BloomPageSerializer(CURRENT_VERSION);

    /** Pages larger than this are corrupt, not big: the largest page size offered is 64 KiB. */
    private static final int MAX_WORDS = 1 << 16;

    BloomPageSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public long[] createInstance() {
        return new long[0];
    }

    @Override
    public long[] copy(long[] from) {
        return from.clone();
    }

    @Override
    public void serialize(long[] words, DataOutputView target) throws IOException {
        target.writeInt(words.length);
        for (long word : words) {
            target.writeLong(word);
        }
    }

    @Override
    public long[] deserialize(DataInputView source) throws IOException {
        int length = source.readInt();
        if (length < 0 || length > MAX_WORDS) {
            throw new IOException("Corrupt Bloom page: " + length + " words");
        }
        long[] words = new long[length];
        for (int i = 0; i < length; i++) {
            words[i] = source.readLong();
        }
        return words;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int length = source.readInt();
        target.writeInt(length);
        target.write(source, length * Long.BYTES);
    }

    @Override
    public TypeSerializerSnapshot<long[]> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link BloomPageSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<long[]> {
        public Snapshot() {
            super(CURRENT_VERSION, BloomPageSerializer::new);
        }
    }
}
