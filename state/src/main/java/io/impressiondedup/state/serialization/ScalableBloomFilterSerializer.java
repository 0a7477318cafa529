package io.impressiondedup.state.serialization;

import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a filter's metadata: what its bits mean and how full it is.
 *
 * <p><b>Format v2</b>, written with every filter so that bits can always be read back the way they
 * were written, even after the job's defaults change:
 *
 * <pre>
 *   byte    format version (2)
 *   int     key bits                   } the fingerprint scheme: which identity the bits encode
 *   long    hash seed                  }
 *   byte    ad-id hash                 } 0: unkeyed FNV-1a, 1: SipHash keyed by the secret
 *   long    initial capacity n0        } the design the layers were sized from
 *   double  target FPP p               }
 *   int     blocks per page
 *   int     layer count, then per layer:
 *     int     blocks                   } geometry: where the bits are
 *     int     probes                   }
 *     long    capacity
 *     double  fpp
 *     long    inserted
 * </pre>
 *
 * <p><b>Format v1</b> is v2 without the ad-id byte: its filters read as unkeyed (the only ad-id hash there
 * was). A serializer of version 1 reads and writes v1, and refuses to write a keyed filter, which v1 cannot
 * say; Flink uses it only to read state it then rewrites in the current format.
 */
public final class ScalableBloomFilterSerializer extends VersionedSerializer<ScalableBloomFilter> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 2;
    public static final ScalableBloomFilterSerializer INSTANCE = new ScalableBloomFilterSerializer(CURRENT_VERSION);

    private static final int MAX_LAYERS = 255;
    private static final int AD_IDS_UNKEYED = 0;
    private static final int AD_IDS_KEYED = 1;

    ScalableBloomFilterSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public ScalableBloomFilter createInstance() {
        return ScalableBloomFilter.create(FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS), 1, 0.5, 1);
    }

    @Override
    public ScalableBloomFilter copy(ScalableBloomFilter from) {
        return from.copy();
    }

    @Override
    public void serialize(ScalableBloomFilter filter, DataOutputView target) throws IOException {
        FingerprintScheme scheme = filter.fingerprintScheme();
        target.writeByte(formatVersion());
        target.writeInt(scheme.keyBits());
        target.writeLong(scheme.seed());
        if (formatVersion() >= 2) {
            target.writeByte(scheme.adIdsKeyed() ? AD_IDS_KEYED : AD_IDS_UNKEYED);
        } else if (scheme.adIdsKeyed()) {
            throw new IOException("Format v1 cannot hold a filter whose ad ids are keyed: " + scheme);
        }
        target.writeLong(filter.initialCapacity());
        target.writeDouble(filter.targetFpp());
        target.writeInt(filter.blocksPerPage());
        List<BloomLayer> layers = filter.layers();
        target.writeInt(layers.size());
        for (BloomLayer layer : layers) {
            target.writeInt(layer.geometry().numBlocks());
            target.writeInt(layer.geometry().probes());
            target.writeLong(layer.capacity());
            target.writeDouble(layer.fpp());
            target.writeLong(layer.inserted());
        }
    }

    @Override
    public ScalableBloomFilter deserialize(DataInputView source) throws IOException {
        int version = source.readUnsignedByte();
        if (version != formatVersion()) {
            throw new IOException("Bloom filter written in format " + version + ", this serializer reads format "
                    + formatVersion());
        }
        try {
            int keyBits = source.readInt();
            long seed = source.readLong();
            boolean adIdsKeyed = false;
            if (version >= 2) {
                int adIdHash = source.readUnsignedByte();
                if (adIdHash != AD_IDS_UNKEYED && adIdHash != AD_IDS_KEYED) {
                    throw new IOException("Corrupt Bloom filter: ad-id hash " + adIdHash + " (0 unkeyed, 1 keyed)");
                }
                adIdsKeyed = adIdHash == AD_IDS_KEYED;
            }
            FingerprintScheme scheme = new FingerprintScheme(keyBits, seed, adIdsKeyed);
            long initialCapacity = source.readLong();
            double targetFpp = source.readDouble();
            int blocksPerPage = source.readInt();
            int layerCount = source.readInt();
            if (layerCount < 1 || layerCount > MAX_LAYERS) {
                throw new IOException("Corrupt Bloom filter: " + layerCount + " layers");
            }
            List<BloomLayer> layers = new ArrayList<>(layerCount);
            for (int i = 0; i < layerCount; i++) {
                int blocks = source.readInt();
                int probes = source.readInt();
                BloomGeometry geometry = new BloomGeometry(blocks, probes, blocksPerPage);
                layers.add(new BloomLayer(geometry, source.readLong(), source.readDouble(), source.readLong()));
            }
            return ScalableBloomFilter.restore(scheme, initialCapacity, targetFpp, blocksPerPage, layers);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt Bloom filter metadata: " + e.getMessage(), e);
        }
    }

    /** Size in bytes of one serialized filter (current format) with {@code layers} layers (for state-size estimates). */
    public static int serializedSize(int layers) {
        return 1 + 4 + 8 + 1 + 8 + 8 + 4 + 4 + layers * (4 + 4 + 8 + 8 + 8);
    }

    @Override
    public TypeSerializerSnapshot<ScalableBloomFilter> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ScalableBloomFilterSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<ScalableBloomFilter> {
        public Snapshot() {
            super(CURRENT_VERSION, ScalableBloomFilterSerializer::new);
        }
    }

}
