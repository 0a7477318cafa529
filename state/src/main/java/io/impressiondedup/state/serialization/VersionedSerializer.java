package io.impressiondedup.state.serialization;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Base of the state serializers: a stateless serializer bound to one binary format version.
 *
 * <p>The current version writes; each lower version only reads state written in it (the versions of
 * every state serializer: docs/COMPATIBILITY.md). Flink hands the version found in a checkpoint to {@link VersionedSerializerSnapshot}, whose
 * {@code restoreSerializer()} builds a serializer for that version, and reports "compatible after
 * migration" so the state is rewritten in the current format. Each subclass documents its format
 * per version; a committed golden file ({@code state/src/test/resources/golden}) pins version 1.
 */
public abstract class VersionedSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    private final int formatVersion;

    protected VersionedSerializer(int formatVersion, int currentVersion) {
        checkArgument(
                formatVersion >= 1 && formatVersion <= currentVersion,
                "%s has formats 1..%s, not %s",
                getClass().getSimpleName(),
                currentVersion,
                formatVersion);
        this.formatVersion = formatVersion;
    }

    /** The format this instance reads (and, if current, writes). */
    public int formatVersion() {
        return formatVersion;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<T> duplicate() {
        return this; // stateless
    }

    @Override
    public T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass() && ((VersionedSerializer<?>) obj).formatVersion == formatVersion;
    }

    @Override
    public int hashCode() {
        return 31 * getClass().hashCode() + formatVersion;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{formatVersion=" + formatVersion + '}';
    }
}
