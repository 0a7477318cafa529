package io.impressiondedup.state.serialization;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The bytes of a {@link FingerprintBucket} inside a bucket directory ({@link BucketFiltersSerializer} format v3 and
 * later): what its sections mean and how many fingerprints it holds.
 *
 * <p><b>Format v2</b> (directory format v4), one entry per {@link FingerprintPart}:
 *
 * <pre>
 *   byte    format version (2)
 *   int     parts, 1..{@value #MAX_PARTS}
 *   then per part, in the order of their cells:
 *     int     key bits                   } the fingerprint scheme, as a Bloom filter's
 *     long    hash seed                  }
 *     byte    ad-id hash                 } 0: unkeyed FNV-1a, 1: SipHash keyed by the secret
 *     long    n0                         } the sizing: each band's value range U, the overflow range and the page of
 *     double  fpp p                      }   a record follow from these four ({@link FingerprintStoreSizing})
 *     int     buckets checked L          }
 *     int     pages P                    }
 *     int     cell j                     } the part's cell: j of k equal cells of the shard (0 of 1: all of it)
 *     int     cells k                    }
 *     long    inserted                   distinct fingerprints in the bands
 *     long    overflowed                 distinct fingerprints in the overflow band
 * </pre>
 *
 * <p><b>Format v1</b> (directory format v3): version byte 1, then one scheme and sizing as above, {@code int}
 * sub-shards k and {@code long} inserted: k parts j = 0..k-1 of k sharing that scheme and sizing, whose count is
 * their sum. It reads as k parts each counting the sum, no overflow: an upper bound of each part's own count, which
 * keeps the FPP promise (a part's band i then holds at most its own entries of band i plus those inserted while
 * the count is in band i's range, never more than band i is sized for) and only opens bands a little sooner.
 *
 * <p><b>Never change v1 or v2</b>: U is recomputed from these inputs on every read, so its formula is part of the
 * format.
 */
final class FingerprintBucketFormat {

    static final int VERSION_1 = 1;
    static final int VERSION_2 = 2;
    /** More parts than this is corruption: reshape cuts a shard into as many cells as the factor between shard counts. */
    static final int MAX_PARTS = 1 << 15;

    private FingerprintBucketFormat() {}

    /** Writes {@code bucket} in format {@code version}: v1 holds only a bucket of one whole part without overflow. */
    static void write(FingerprintBucket bucket, DataOutputView target, int version) throws IOException {
        List<FingerprintPart> parts = bucket.parts();
        if (version == VERSION_1) {
            FingerprintPart part = parts.get(0);
            if (parts.size() != 1 || part.cellCount() != 1 || part.overflowed() != 0) {
                throw new IOException("Fingerprint bucket format v1 (directory format v3) cannot hold " + bucket
                        + ": only one whole part without overflow");
            }
            target.writeByte(VERSION_1);
            writeSchemeAndSizing(part, target);
            target.writeInt(1);
            target.writeLong(part.inserted());
            return;
        }
        target.writeByte(VERSION_2);
        target.writeInt(parts.size());
        for (FingerprintPart part : parts) {
            writeSchemeAndSizing(part, target);
            target.writeInt(part.cellIndex());
            target.writeInt(part.cellCount());
            target.writeLong(part.inserted());
            target.writeLong(part.overflowed());
        }
    }

    private static void writeSchemeAndSizing(FingerprintPart part, DataOutputView target) throws IOException {
        FingerprintScheme scheme = part.fingerprintScheme();
        FingerprintStoreSizing sizing = part.sizing();
        target.writeInt(scheme.keyBits());
        target.writeLong(scheme.seed());
        target.writeByte(scheme.adIdsKeyed() ? 1 : 0);
        target.writeLong(sizing.capacityPerShard());
        target.writeDouble(sizing.fpp());
        target.writeInt(sizing.bucketsChecked());
        target.writeInt(sizing.pages());
    }

    static FingerprintBucket read(DataInputView source) throws IOException {
        int version = source.readUnsignedByte();
        try {
            if (version == VERSION_1) {
                FingerprintScheme scheme = readScheme(source);
                FingerprintStoreSizing sizing = readSizing(source);
                int cells = source.readInt();
                long inserted = source.readLong();
                if (cells < 1 || cells > MAX_PARTS) {
                    throw new IOException("Corrupt fingerprint bucket: " + cells + " sub-shards");
                }
                List<FingerprintPart> parts = new ArrayList<>(cells);
                for (int j = 0; j < cells; j++) {
                    parts.add(new FingerprintPart(scheme, sizing, j, cells, inserted, 0));
                }
                return new FingerprintBucket(parts);
            }
            if (version != VERSION_2) {
                throw new IOException("Fingerprint bucket written in format " + version + ", this release reads formats "
                        + VERSION_1 + " and " + VERSION_2);
            }
            int count = source.readInt();
            if (count < 1 || count > MAX_PARTS) {
                throw new IOException("Corrupt fingerprint bucket: " + count + " parts");
            }
            List<FingerprintPart> parts = new ArrayList<>(Math.min(count, 64));
            for (int i = 0; i < count; i++) {
                FingerprintScheme scheme = readScheme(source);
                FingerprintStoreSizing sizing = readSizing(source);
                int cell = source.readInt();
                int cells = source.readInt();
                parts.add(new FingerprintPart(scheme, sizing, cell, cells, source.readLong(), source.readLong()));
            }
            return new FingerprintBucket(parts);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt fingerprint bucket metadata: " + e.getMessage(), e);
        }
    }

    private static FingerprintScheme readScheme(DataInputView source) throws IOException {
        int keyBits = source.readInt();
        long seed = source.readLong();
        int adIdHash = source.readUnsignedByte();
        if (adIdHash > 1) {
            throw new IOException("Corrupt fingerprint bucket: ad-id hash " + adIdHash + " (0 unkeyed, 1 keyed)");
        }
        return new FingerprintScheme(keyBits, seed, adIdHash == 1);
    }

    private static FingerprintStoreSizing readSizing(DataInputView source) throws IOException {
        return new FingerprintStoreSizing(source.readLong(), source.readDouble(), source.readInt(), source.readInt());
    }
}
