package io.impressiondedup.tools.inspect;

/**
 * What one shard's filter of one bucket holds, as {@code inspect} shows it: from the filter's metadata
 * (inserted, planned capacity, layers, its {@code estimatedFpp()}, bytes at full size) and from its pages
 * in state (bits set, bytes stored, and the FPP those bits give). A public POJO, so Flink serializes it
 * with its POJO serializer.
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
    /** Bytes of the pages present in state (pages are created on first write); fingerprint format: its sections' streams. */
    public long storedBytes;

    public BucketFigures() {}

    /** Inserted over planned capacity (above 1: over plan, layers added). */
    public double fillRatio() {
        return (double) inserted / capacity;
    }
}
