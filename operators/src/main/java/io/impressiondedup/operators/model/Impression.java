package io.impressiondedup.operators.model;

import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * A parsed impression: the fields dedup needs, the MD5 digest of the request id (computed once, at
 * the source, so neither the key selector nor the operator hashes again), and the original record.
 *
 * <p>With a fingerprint secret the source also hashes the ad id with the secret's key ({@link
 * #keyedAdIdHash()}): the operator has no secret to do it with. Without one that field is 0 and unused,
 * since every filter of such a job hashes ad ids unkeyed (see {@code FingerprintScheme}).
 */
public final class Impression {

    public static final TypeInformation<Impression> TYPE_INFO =
            new ExplicitTypeInfo<>(Impression.class, ImpressionSerializer.INSTANCE);

    private final String requestId;
    private final String adId;
    private final long eventTime;
    private final long digestHigh;
    private final long digestLow;
    private final long keyedAdIdHash;
    private final RawKafkaRecord raw;

    /** An impression of a job without a fingerprint secret (no keyed ad-id hash). */
    public Impression(String requestId, String adId, long eventTime, long digestHigh, long digestLow, RawKafkaRecord raw) {
        this(requestId, adId, eventTime, digestHigh, digestLow, 0L, raw);
    }

    public Impression(String requestId, String adId, long eventTime, long digestHigh, long digestLow, long keyedAdIdHash,
            RawKafkaRecord raw) {
        this.requestId = Objects.requireNonNull(requestId, "requestId");
        this.adId = Objects.requireNonNull(adId, "adId");
        this.eventTime = eventTime;
        this.digestHigh = digestHigh;
        this.digestLow = digestLow;
        this.keyedAdIdHash = keyedAdIdHash;
        this.raw = Objects.requireNonNull(raw, "raw");
    }

    public String requestId() {
        return requestId;
    }

    public String adId() {
        return adId;
    }

    /** Event time, epoch milliseconds. */
    public long eventTime() {
        return eventTime;
    }

    /** Bits 0..63 of MD5(requestId). */
    public long digestHigh() {
        return digestHigh;
    }

    /** Bits 64..127 of MD5(requestId). */
    public long digestLow() {
        return digestLow;
    }

    /** The ad id hashed with the fingerprint secret's key ({@code FingerprintSecret#keyedAdIdHash}); 0 without a secret. */
    public long keyedAdIdHash() {
        return keyedAdIdHash;
    }

    public RawKafkaRecord raw() {
        return raw;
    }

    /** This impression with another raw record (e.g. one more header). */
    public Impression withRaw(RawKafkaRecord newRaw) {
        return new Impression(requestId, adId, eventTime, digestHigh, digestLow, keyedAdIdHash, newRaw);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Impression)) {
            return false;
        }
        Impression that = (Impression) o;
        return eventTime == that.eventTime
                && digestHigh == that.digestHigh
                && digestLow == that.digestLow
                && keyedAdIdHash == that.keyedAdIdHash
                && requestId.equals(that.requestId)
                && adId.equals(that.adId)
                && raw.equals(that.raw);
    }

    @Override
    public int hashCode() {
        return Objects.hash(requestId, adId, eventTime);
    }

    @Override
    public String toString() {
        return "Impression{requestId=" + requestId + ", adId=" + adId + ", eventTime=" + eventTime + ", " + raw.position() + '}';
    }
}
