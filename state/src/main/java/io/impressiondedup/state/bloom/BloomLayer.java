package io.impressiondedup.state.bloom;

import java.util.Objects;

/**
 * One layer of a {@link ScalableBloomFilter}: its geometry, the capacity and FPP it was sized for,
 * and how many elements it holds. Mutable only through {@link #recordInsert()}.
 */
public final class BloomLayer {

    private final BloomGeometry geometry;
    private final long capacity;
    private final double fpp;
    private long inserted;

    public BloomLayer(BloomGeometry geometry, long capacity, double fpp, long inserted) {
        this.geometry = geometry;
        this.capacity = capacity;
        this.fpp = fpp;
        this.inserted = inserted;
    }

    public BloomGeometry geometry() {
        return geometry;
    }

    public long capacity() {
        return capacity;
    }

    public double fpp() {
        return fpp;
    }

    public long inserted() {
        return inserted;
    }

    public boolean isFull() {
        return inserted >= capacity;
    }

    void recordInsert() {
        inserted++;
    }

    void recordInserts(long count) {
        inserted += count;
    }

    /** The FPP this layer has at its current fill (blocked formula). */
    public double currentFpp() {
        return fppHolding(inserted);
    }

    /** The FPP this layer has when it holds {@code elements} elements (blocked formula). */
    public double fppHolding(long elements) {
        return BloomSizing.blockedFpp(geometry.numBlocks(), elements, geometry.probes());
    }

    BloomLayer copy() {
        return new BloomLayer(geometry, capacity, fpp, inserted);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BloomLayer)) {
            return false;
        }
        BloomLayer that = (BloomLayer) o;
        return capacity == that.capacity
                && Double.compare(that.fpp, fpp) == 0
                && inserted == that.inserted
                && geometry.equals(that.geometry);
    }

    @Override
    public int hashCode() {
        return Objects.hash(geometry, capacity, fpp, inserted);
    }

    @Override
    public String toString() {
        return "BloomLayer{" + geometry + ", capacity=" + capacity + ", fpp=" + fpp + ", inserted=" + inserted + '}';
    }
}
