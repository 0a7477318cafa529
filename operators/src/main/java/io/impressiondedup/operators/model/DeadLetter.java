package io.impressiondedup.operators.model;

import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** A record set aside with a reason: its original bytes, why, and a short message for humans. */
public final class DeadLetter {

    public static final TypeInformation<DeadLetter> TYPE_INFO =
            new ExplicitTypeInfo<>(DeadLetter.class, DeadLetterSerializer.INSTANCE);

    /** Longer texts in an error are cut (with "..."): it travels as a header of the dead-letter record, not as a log. */
    public static final int MAX_ERROR_LENGTH = 200;

    private final RawKafkaRecord raw;
    private final DeadLetterReason reason;
    private final String error;

    public DeadLetter(RawKafkaRecord raw, DeadLetterReason reason, String error) {
        this.raw = Objects.requireNonNull(raw, "raw");
        this.reason = Objects.requireNonNull(reason, "reason");
        this.error = Objects.requireNonNull(error, "error");
    }

    /** {@code s} cut to {@value #MAX_ERROR_LENGTH} characters, with "..." if it was longer; "" for null. */
    public static String abbreviated(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= MAX_ERROR_LENGTH ? s : s.substring(0, MAX_ERROR_LENGTH) + "...";
    }

    public RawKafkaRecord raw() {
        return raw;
    }

    public DeadLetterReason reason() {
        return reason;
    }

    public String error() {
        return error;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DeadLetter)) {
            return false;
        }
        DeadLetter that = (DeadLetter) o;
        return raw.equals(that.raw) && reason == that.reason && error.equals(that.error);
    }

    @Override
    public int hashCode() {
        return Objects.hash(raw, reason, error);
    }

    @Override
    public String toString() {
        return "DeadLetter{" + reason.headerValue() + ", " + raw.position() + ": " + error + '}';
    }
}
