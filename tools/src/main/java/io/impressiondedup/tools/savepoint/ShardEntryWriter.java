package io.impressiondedup.tools.savepoint;

import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.BucketFilters;

/**
 * Writes {@link ShardEntry}s back as keyed state, each under the key of its shard (see {@link DedupSavepointWriter}). A
 * shard gets one directory, and one entry per page key, unless {@link #combiningPages}: then fingerprint pages meeting at
 * one key, which {@code ShardReshape} moves from different old pages with sections of different buckets, are put
 * together section by section (a section of one bucket and band twice is refused: it would lose values).
 */
final class ShardEntryWriter extends DedupStateWriter<ShardEntry> {

    private static final long serialVersionUID = 1L;

    private boolean combinePages;

    ShardEntryWriter(int shards, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
        super(shards, fingerprintCheck, latenessWatermark, dedupKey);
    }

    /** Puts fingerprint pages at one key together instead of refusing the second. */
    ShardEntryWriter combiningPages() {
        this.combinePages = true;
        return this;
    }

    @Override
    public void processElement(ShardEntry entry, Context context) throws Exception {
        if (entry.isDirectory()) {
            if (directory.value() != null) {
                throw new IllegalStateException("Two bucket directories for shard " + entry.shard);
            }
            directory.update(entry.directory());
        } else if (entry.fingerprintPage) {
            FingerprintPage written = fingerprintPages.get(entry.address);
            if (written != null && !combinePages) {
                throw new IllegalStateException("Two fingerprint pages at key " + entry.address + " for shard " + entry.shard);
            }
            fingerprintPages.put(entry.address, written == null ? entry.fingerprintPage() : combined(written, entry));
        } else {
            if (pages.contains(entry.address)) {
                throw new IllegalStateException("Two page groups at address " + entry.address + " for shard " + entry.shard);
            }
            pages.put(entry.address, entry.pageGroup());
        }
    }

    /** {@code written} with the sections of {@code entry}'s page, which must hold other (bucket, band) pairs. */
    private static FingerprintPage combined(FingerprintPage written, ShardEntry entry) {
        FingerprintPage more = entry.fingerprintPage();
        for (int i = 0; i < more.sectionCount(); i++) {
            if (written.section(more.bucketAt(i), more.bandAt(i)) != null) {
                throw new IllegalStateException("Two sections of bucket " + more.bucketAt(i) + ", band " + more.bandAt(i) + " at page key "
                        + entry.address + " of shard " + entry.shard);
            }
            written.putSection(more.bucketAt(i), more.bandAt(i), more.sectionAt(i));
        }
        return written;
    }
}
