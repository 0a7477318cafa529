package io.impressiondedup.state.serialization;

import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The bytes of a {@link FingerprintBucket} inside a bucket directory (format v3 of {@link
 * BucketFiltersSerializer}): what its sections mean and how many fingerprints it holds.
 *
 * <pre>
 *   byte    format version (1)
 *   int     key bits                   } the fingerprint scheme, as a Bloom filter's
 *   long    hash seed                  }
 *   byte    ad-id hash                 } 0: unkeyed FNV-1a, 1: SipHash keyed by the secret
 *   long    n0                         } the sizing: each band's value range U and the page of a record
 *   double  fpp p                      }   follow from these four ({@link FingerprintStoreSizing})
 *   int     buckets checked L          }
 *   int     pages P                    }
 *   int     sub-shards k                 1, or the shards of an earlier count merged into this one (page j P + p of part j)
 *   long    inserted                     distinct fingerprints held
 * </pre>
 *
 * <b>Never change v1</b>: U is recomputed from these inputs on every read, so its formula is part of the format.
 */
final class FingerprintBucketFormat {

    static final int VERSION = 1;

    private FingerprintBucketFormat() {}

    static void write(FingerprintBucket bucket, DataOutputView target) throws IOException {
        FingerprintScheme scheme = bucket.fingerprintScheme();
        FingerprintStoreSizing sizing = bucket.sizing();
        target.writeByte(VERSION);
        target.writeInt(scheme.keyBits());
        target.writeLong(scheme.seed());
        target.writeByte(scheme.adIdsKeyed() ? 1 : 0);
        target.writeLong(sizing.capacityPerShard());
        target.writeDouble(sizing.fpp());
        target.writeInt(sizing.bucketsChecked());
        target.writeInt(sizing.pages());
        target.writeInt(bucket.subShards());
        target.writeLong(bucket.inserted());
    }

    static FingerprintBucket read(DataInputView source) throws IOException {
        int version = source.readUnsignedByte();
        if (version != VERSION) {
            throw new IOException("Fingerprint bucket written in format " + version + ", this release reads format " + VERSION);
        }
        try {
            int keyBits = source.readInt();
            long seed = source.readLong();
            int adIdHash = source.readUnsignedByte();
            if (adIdHash > 1) {
                throw new IOException("Corrupt fingerprint bucket: ad-id hash " + adIdHash + " (0 unkeyed, 1 keyed)");
            }
            FingerprintScheme scheme = new FingerprintScheme(keyBits, seed, adIdHash == 1);
            FingerprintStoreSizing sizing = new FingerprintStoreSizing(source.readLong(), source.readDouble(), source.readInt(),
                    source.readInt());
            int subShards = source.readInt();
            return new FingerprintBucket(scheme, sizing, source.readLong(), subShards);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt fingerprint bucket metadata: " + e.getMessage(), e);
        }
    }
}
