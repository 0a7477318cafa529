package io.impressiondedup.operators.model;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information that always answers with one given serializer. Declaring it on every stream keeps
 * Flink from analysing our classes and falling back to Kryo; the job also disables generic types, so
 * a stream that lacks it fails at submission instead of serializing silently with Kryo.
 */
public final class ExplicitTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> typeClass;
    private final TypeSerializer<T> serializer;

    public ExplicitTypeInfo(Class<T> typeClass, TypeSerializer<T> serializer) {
        this.typeClass = Objects.requireNonNull(typeClass);
        this.serializer = Objects.requireNonNull(serializer);
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return typeClass;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return typeClass.getSimpleName() + "(" + serializer.getClass().getSimpleName() + ")";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ExplicitTypeInfo
                && ((ExplicitTypeInfo<?>) obj).typeClass.equals(typeClass)
                && ((ExplicitTypeInfo<?>) obj).serializer.equals(serializer);
    }

    @Override
    public int hashCode() {
        return 31 * typeClass.hashCode() + serializer.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof ExplicitTypeInfo;
    }
}
