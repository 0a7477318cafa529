package io.impressiondedup.state.bloom;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A Bloom filter that keeps its false-positive rate when more elements arrive than it was sized for,
 * by adding layers (Almeida, Baquero, Preguica and Hutchison 2007, "Scalable Bloom Filters";
 * RedisBloom's {@code EXPANSION} works the same way).
 *
 * <p><b>Growth.</b> Layer 0 is sized for the planned capacity n0. When the newest layer has received
 * as many elements as it was sized for, a new layer with {@value #GROWTH_FACTOR}x the capacity is
 * added; new elements go to the newest layer only, lookups ask every layer. Layer i is sized for
 *
 * <pre>
 *   capacity_i = n0 * 2^i           fpp_i = p * (1 - r) * r^i,   r = 1/2
 * </pre>
 *
 * so the compound FPP, at most the sum of the layers' FPPs, stays below {@code p (1 - r) / (1 - r)
 * = p} however many layers are added. The price is that layer 0 is sized for p/2, about 1.44 bits
 * more per element than a fixed filter for p; that is what buys "still at most p when traffic runs 4x
 * over plan", which a fixed filter cannot offer (its FPP climbs towards 1).
 *
 * <p><b>Refused growth.</b> The caller may cap how many bytes new layers may take ({@link
 * #insertAbsent(long, long, BloomPageStore, long)}: the operator's per-shard state cap). A filter
 * refused a layer, or at {@link #MAX_LAYERS}, keeps inserting into its newest layer beyond that
 * layer's capacity: its size stays, and its FPP rises with every such insert, which {@link
 * #estimatedFpp()} shows. Memory is then bounded and accuracy is not.
 *
 * <p><b>Storage.</b> This object holds the filter's metadata (fingerprint scheme, design, layers and
 * their counts: a few dozen bytes); the bits live in a {@link BloomPageStore}, on the heap or in
 * keyed state, passed to every call. That split is what lets the operator keep the metadata in one
 * small state entry and the bits page-wise in another, touching one page per layer per lookup.
 *
 * <p>Not thread-safe.
 */
public final class ScalableBloomFilter implements BucketFilter {

    /** Capacity multiplier of each new layer. */
    public static final int GROWTH_FACTOR = 2;
    /** FPP multiplier of each new layer. */
    public static final double TIGHTENING_RATIO = 0.5;
    /**
     * Growth stops here (capacity 2^(MAX_LAYERS-1) times the plan); past it the newest layer
     * over-fills and its FPP rises, which {@link #estimatedFpp()} shows.
     */
    public static final int MAX_LAYERS = 16;

    private final FingerprintScheme fingerprintScheme;
    private final long initialCapacity;
    private final double targetFpp;
    private final int blocksPerPage;
    private final List<BloomLayer> layers;
    /** Geometry of the layer to add next, once asked for ({@link #nextLayerBytes()}); not part of the state. */
    private BloomGeometry nextLayer;
    private boolean nextLayerUnaddressable;

    private ScalableBloomFilter(
            FingerprintScheme fingerprintScheme,
            long initialCapacity,
            double targetFpp,
            int blocksPerPage,
            List<BloomLayer> layers) {
        this.fingerprintScheme = Objects.requireNonNull(fingerprintScheme, "fingerprintScheme");
        this.initialCapacity = initialCapacity;
        this.targetFpp = targetFpp;
        this.blocksPerPage = blocksPerPage;
        this.layers = layers;
    }

    /** A filter with one layer, sized for {@code initialCapacity} elements, compound FPP {@code targetFpp}. */
    public static ScalableBloomFilter create(
            FingerprintScheme fingerprintScheme, long initialCapacity, double targetFpp, int blocksPerPage) {
        checkArgument(initialCapacity > 0, "initialCapacity must be positive, but was %s", initialCapacity);
        checkArgument(targetFpp > 0 && targetFpp < 1, "targetFpp must be in (0, 1), but was %s", targetFpp);
        ScalableBloomFilter filter = new ScalableBloomFilter(
                fingerprintScheme, initialCapacity, targetFpp, blocksPerPage, new ArrayList<>());
        filter.addLayer();
        return filter;
    }

    /** Rebuilds a filter's metadata as read from state; the layers are used as given. */
    public static ScalableBloomFilter restore(
            FingerprintScheme fingerprintScheme,
            long initialCapacity,
            double targetFpp,
            int blocksPerPage,
            List<BloomLayer> layers) {
        checkArgument(!layers.isEmpty(), "a filter has at least one layer");
        return new ScalableBloomFilter(
                fingerprintScheme, initialCapacity, targetFpp, blocksPerPage, new ArrayList<>(layers));
    }

    /** Capacity of layer {@code i}: {@code n0 * 2^i}. */
    public static long layerCapacity(long initialCapacity, int layer) {
        return initialCapacity << layer;
    }

    /** FPP layer {@code i} is sized for: {@code p (1 - r) r^i}. */
    public static double layerFpp(double targetFpp, int layer) {
        return targetFpp * (1 - TIGHTENING_RATIO) * Math.pow(TIGHTENING_RATIO, layer);
    }

    /** Geometry of layer {@code i} of a filter planned for {@code initialCapacity} at compound FPP {@code targetFpp}. */
    public static BloomGeometry layerGeometry(long initialCapacity, double targetFpp, int blocksPerPage, int layer) {
        return BloomSizing.size(layerCapacity(initialCapacity, layer), layerFpp(targetFpp, layer), blocksPerPage);
    }

    public boolean mightContain(long h1, long h2, BloomPageStore pages) {
        for (int i = layers.size() - 1; i >= 0; i--) {
            if (layers.get(i).geometry().mightContain(pages, i, h1, h2)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Inserts an element the caller has just found absent ({@link #mightContain} false), growing
     * first if the newest layer is full.
     *
     * @return whether a layer was added for it
     */
    public boolean insertAbsent(long h1, long h2, BloomPageStore pages) {
        return insertAbsent(h1, h2, pages, Long.MAX_VALUE) == Insertion.GREW;
    }

    /**
     * Inserts an element the caller has just found absent ({@link #mightContain} false). If the newest
     * layer is full, a new layer is added first if the filter can add one ({@link #nextLayerBytes()})
     * and its bits fit in {@code growthAllowance} bytes; otherwise the element over-fills the newest
     * layer.
     */
    public Insertion insertAbsent(long h1, long h2, BloomPageStore pages, long growthAllowance) {
        Insertion insertion = Insertion.INSERTED;
        if (newestLayer().isFull()) {
            if (mayGrow(growthAllowance)) {
                addLayer();
                insertion = Insertion.GREW;
            } else {
                insertion = Insertion.OVER_FILLED;
            }
        }
        int top = layers.size() - 1;
        BloomLayer layer = layers.get(top);
        layer.geometry().put(pages, top, h1, h2);
        layer.recordInsert();
        return insertion;
    }

    /** Whether the filter can add a layer ({@link #nextLayerBytes()}) whose bits fit in {@code growthAllowance} bytes. */
    private boolean mayGrow(long growthAllowance) {
        long nextLayerBytes = nextLayerBytes();
        return nextLayerBytes != Long.MAX_VALUE && nextLayerBytes <= growthAllowance;
    }

    /**
     * The filter's metadata after {@code inserted} elements, each found absent, went in through {@link
     * #insertAbsent(long, long, BloomPageStore, long)} with {@code growthAllowance} bytes for its growth layers
     * (what the shard state cap leaves this filter): the same layers, each with the count those inserts leave. No
     * bits: for sizing and forecasts ({@code StateFormatForecast}), which need the layers and their fill only.
     */
    public static ScalableBloomFilter filledTo(FingerprintScheme fingerprintScheme, long initialCapacity, double targetFpp,
            int blocksPerPage, long inserted, long growthAllowance) {
        checkArgument(inserted >= 0, "inserted must not be negative, but was %s", inserted);
        ScalableBloomFilter filter = create(fingerprintScheme, initialCapacity, targetFpp, blocksPerPage);
        long left = inserted;
        while (left > 0) {
            BloomLayer newest = filter.newestLayer();
            if (newest.isFull()) {
                if (filter.mayGrow(growthAllowance - filter.growthBytes())) {
                    filter.addLayer();
                    continue;
                }
                newest.recordInserts(left); // over-fills, as insertAbsent does when refused a layer
                break;
            }
            long taken = Math.min(left, newest.capacity() - newest.inserted());
            newest.recordInserts(taken);
            left -= taken;
        }
        return filter;
    }

    /**
     * The compound FPP this filter had when it held its first {@code inserted} elements ({@code <=} {@link
     * #inserted()}): its layers fill in order, each up to its capacity and the newest with the rest, so the filter
     * then had the layers those elements reached, filled so; {@code 1 - prod(1 - fpp_i)} over them, as {@link
     * #estimatedFpp()}.
     */
    public double estimatedFppAfter(long inserted) {
        checkArgument(inserted >= 0 && inserted <= inserted(), "inserted must be in [0, %s], but was %s", inserted(), inserted);
        double allNegative = 1.0;
        long left = inserted;
        for (int i = 0; i < layers.size(); i++) {
            BloomLayer layer = layers.get(i);
            long held = i == layers.size() - 1 ? left : Math.min(left, layer.capacity());
            allNegative *= 1.0 - layer.fppHolding(held);
            left -= held;
            if (left == 0) {
                break;
            }
        }
        return 1.0 - allNegative;
    }

    /** Whether the newest layer is full: the next insert adds a layer or over-fills. */
    public boolean needsLayer() {
        return newestLayer().isFull();
    }

    /**
     * Bytes of the layer the filter would add next; {@link Long#MAX_VALUE} if it can add none: at
     * {@link #MAX_LAYERS}, or when that layer would need more pages than a page address holds (with
     * 256-byte pages a plan of 2 billion a day over 128 shards gets there at layer 6, 127x the plan).
     * Sized once and remembered: a filter refused growth asks this at every insert.
     */
    public long nextLayerBytes() {
        if (layers.size() >= MAX_LAYERS || nextLayerUnaddressable) {
            return Long.MAX_VALUE;
        }
        if (nextLayer == null) {
            int index = layers.size();
            try {
                nextLayer = layerGeometry(initialCapacity, targetFpp, blocksPerPage, index);
            } catch (IllegalArgumentException e) {
                nextLayerUnaddressable = true; // the filter over-fills instead: failing the record would fail the job
                return Long.MAX_VALUE;
            }
        }
        return nextLayer.bytes();
    }

    /**
     * Inserts the element unless it might already be contained.
     *
     * @return whether it was inserted (it was new)
     */
    public boolean putIfAbsent(long h1, long h2, BloomPageStore pages) {
        if (mightContain(h1, h2, pages)) {
            return false;
        }
        insertAbsent(h1, h2, pages);
        return true;
    }

    private void addLayer() {
        int index = layers.size();
        long capacity = layerCapacity(initialCapacity, index);
        double fpp = layerFpp(targetFpp, index);
        BloomGeometry geometry = nextLayer != null ? nextLayer : layerGeometry(initialCapacity, targetFpp, blocksPerPage, index);
        nextLayer = null;
        nextLayerUnaddressable = false;
        layers.add(new BloomLayer(geometry, capacity, fpp, 0));
    }

    @Override
    public StateFormat format() {
        return StateFormat.BLOOM;
    }

    /** Which identity the filter's bits encode. */
    public FingerprintScheme fingerprintScheme() {
        return fingerprintScheme;
    }

    @Override
    public long initialCapacity() {
        return initialCapacity;
    }

    public double targetFpp() {
        return targetFpp;
    }

    public int blocksPerPage() {
        return blocksPerPage;
    }

    public List<BloomLayer> layers() {
        return Collections.unmodifiableList(layers);
    }

    /** Layer {@code index} (0 the first); unlike {@link #layers()}, allocates nothing: the operator asks for each page it reads. */
    public BloomLayer layer(int index) {
        return layers.get(index);
    }

    public int layerCount() {
        return layers.size();
    }

    private BloomLayer newestLayer() {
        return layers.get(layers.size() - 1);
    }

    /** Elements inserted over all layers. */
    @Override
    public long inserted() {
        long total = 0;
        for (BloomLayer layer : layers) {
            total += layer.inserted();
        }
        return total;
    }

    /** Size of all layers' bits if every page existed. */
    public long bytes() {
        long total = 0;
        for (BloomLayer layer : layers) {
            total += layer.geometry().bytes();
        }
        return total;
    }

    /** Size of the layers beyond the first (the growth) if every page existed. */
    @Override
    public long growthBytes() {
        return bytes() - layers.get(0).geometry().bytes();
    }

    /** Elements inserted relative to the planned capacity n0 (above 1: traffic over plan). */
    @Override
    public double loadFactor() {
        return (double) inserted() / initialCapacity;
    }

    /**
     * The compound FPP at the current fill: {@code 1 - prod(1 - fpp_i)} over the layers, each from the
     * blocked formula. Computes a Poisson sum per layer; for gauges, not per record.
     */
    @Override
    public double estimatedFpp() {
        double allNegative = 1.0;
        for (BloomLayer layer : layers) {
            allNegative *= 1.0 - layer.currentFpp();
        }
        return 1.0 - allNegative;
    }

    @Override
    public ScalableBloomFilter copy() {
        List<BloomLayer> copies = new ArrayList<>(layers.size());
        for (BloomLayer layer : layers) {
            copies.add(layer.copy());
        }
        return new ScalableBloomFilter(fingerprintScheme, initialCapacity, targetFpp, blocksPerPage, copies);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ScalableBloomFilter)) {
            return false;
        }
        ScalableBloomFilter that = (ScalableBloomFilter) o;
        return initialCapacity == that.initialCapacity
                && Double.compare(that.targetFpp, targetFpp) == 0
                && blocksPerPage == that.blocksPerPage
                && fingerprintScheme.equals(that.fingerprintScheme)
                && layers.equals(that.layers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fingerprintScheme, initialCapacity, targetFpp, blocksPerPage, layers);
    }

    @Override
    public String toString() {
        return "ScalableBloomFilter{"
                + fingerprintScheme
                + ", initialCapacity=" + initialCapacity
                + ", targetFpp=" + targetFpp
                + ", blocksPerPage=" + blocksPerPage
                + ", layers=" + layers
                + '}';
    }
}
