package io.impressiondedup.state;

import java.util.Locale;

/**
 * How a bucket's impressions are stored: the choice of {@code --state-format}, made per bucket when the bucket
 * is created and recorded with it ({@link BucketFilter#format()}), so that a restore with the other format
 * selected keeps each old bucket in its own format until it expires and opens new buckets in the new one.
 *
 * <ul>
 *   <li>{@link #BLOOM}: a scalable blocked Bloom filter per shard-bucket ({@code ScalableBloomFilter}), the
 *       default: about 22 bits per unique impression at FPP 0.001 on plan, a fixed-size bitset per bucket, the
 *       fastest lookup and insert.
 *   <li>{@link #FINGERPRINTS}: Elias-Fano coded fingerprints per shard-bucket in pages shared by all buckets
 *       ({@code FingerprintBucket}, {@code FingerprintPage}): about 14.7 bits per unique impression at FPP 0.001
 *       on plan and 18.2 at 4x over plan (Bloom: 44), an exact count of what each bucket holds, slower inserts.
 * </ul>
 */
public enum StateFormat {
    BLOOM,
    FINGERPRINTS;

    /** The name {@code --state-format} takes. */
    public String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The option value: Flink's configuration parses enums by their {@code toString()}. */
    @Override
    public String toString() {
        return optionValue();
    }

    /** The format named {@code value} ({@link #optionValue()}, any case). */
    public static StateFormat fromOptionValue(String value) {
        for (StateFormat format : values()) {
            if (format.optionValue().equalsIgnoreCase(value.trim())) {
                return format;
            }
        }
        throw new IllegalArgumentException("unknown state format '" + value + "': expected bloom or fingerprints");
    }
}
