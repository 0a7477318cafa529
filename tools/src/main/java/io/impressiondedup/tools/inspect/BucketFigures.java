package io.impressiondedup.tools.inspect;

import io.impressiondedup.state.StateFormat;

/**
 * What one shard's filter of one bucket holds, as {@code inspect} shows it: from the filter's metadata
 * (inserted, planned capacity, its {@code estimatedFpp()}) and from its pages in state (bytes stored, and the FPP
 * the stored bits or fingerprints give); then the figures of its format, the others left at 0 (and printed as "-"):
 * a Bloom filter's layers, bits set, bits at full size and bytes at full size; a fingerprint bucket's parts, highest
 * band open, the distinct fingerprints counted in its pages and those in its overflow sections. A public POJO, so
 * Flink serializes it with its POJO serializer.
 */
public final class BucketFigures {

    public int shard;
    public long bucket;
    /** The bucket's state format ({@code StateFormat#optionValue()}). */
    public String format;
    /** Impressions inserted over all layers. */
    public long inserted;
    /** The planned capacity of the filter (its first layer's). */
    public long capacity;
    public int layers;
    /** Set bits over the pages present in state. */
    public long bitsSet;
    /** Bits of all layers at full size. */
    public long bitsTotal;
    /** The filter's own estimate from its insert counts ({@code ScalableBloomFilter#estimatedFpp}, what the gauge sums). */
    public double estimatedFpp;
    /**
     * The FPP the bits actually set give: per layer, the mean over its blocks of (set bits / 512)^probes (the
     * chance all probes of an absent element land on set bits of its block), compounded over the layers.
     */
    public double fillFpp;
    /** Bytes of all layers at full size (what the gauge bloom-bytes sums). */
    public long bytes;
    /**
     * Fingerprint format: the distinct fingerprints its sections hold, counted in the pages (exact; equals {@link
     * #inserted}, which the directory keeps). 0 for a Bloom filter.
     */
    public long fingerprints;
    /** Fingerprint format: its parts (1 unless reshaped to fewer shards: one per old shard). */
    public int parts;
    /** Fingerprint format: the highest band open in any part (0: within plan). */
    public int maxBand;
    /**
     * Fingerprint format: the distinct fingerprints in its overflow sections, inserted there because the shard state cap
     * kept a band from opening (counted in the pages).
     */
    public long overflowed;
    /** Bytes of the pages present in state (pages are created on first write); fingerprint format: its sections' streams. */
    public long storedBytes;

    public BucketFigures() {}

    /**
     * Inserted over planned capacity (above 1: over plan, layers or bands added); for a fingerprint bucket in parts, its
     * fullest part's values over that part's own plan ({@code BucketFilter#loadFactor()}).
     */
    public double fill;

    public double fillRatio() {
        return fill;
    }

    /** Whether the figures are of a fingerprint bucket. */
    public boolean fingerprintFormat() {
        return StateFormat.FINGERPRINTS.optionValue().equals(format);
    }
}
