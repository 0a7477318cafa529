package io.impressiondedup.tools.savepoint;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.fingerprints.FingerprintShardMerge;

/**
 * Writes {@link ShardEntry}s back as keyed state, each under the key of its shard (see {@link DedupSavepointWriter}). A
 * shard gets one directory, unless its state is merged from several shards ({@link #mergingParts}): then the parts'
 * directories are merged ({@link FingerprintShardMerge#merge}).
 */
final class ShardEntryWriter extends DedupStateWriter<ShardEntry> {

    private static final long serialVersionUID = 1L;

    private boolean mergeParts;

    ShardEntryWriter(int shards, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
        super(shards, fingerprintCheck, latenessWatermark, dedupKey);
    }

    /** Merges the directories of the parts of one shard instead of refusing a second one. */
    ShardEntryWriter mergingParts() {
        this.mergeParts = true;
        return this;
    }

    @Override
    public void processElement(ShardEntry entry, Context context) throws Exception {
        if (entry.isDirectory()) {
            BucketFilters written = directory.value();
            if (written != null && !mergeParts) {
                throw new IllegalStateException("Two bucket directories for shard " + entry.shard);
            }
            directory.update(written == null ? entry.directory() : FingerprintShardMerge.merge(written, entry.directory()));
        } else if (entry.fingerprintPage) {
            if (fingerprintPages.contains(entry.address)) {
                throw new IllegalStateException("Two fingerprint pages at key " + entry.address + " for shard " + entry.shard);
            }
            fingerprintPages.put(entry.address, entry.fingerprintPage());
        } else {
            if (pages.contains(entry.address)) {
                throw new IllegalStateException("Two page groups at address " + entry.address + " for shard " + entry.shard);
            }
            pages.put(entry.address, entry.pageGroup());
        }
    }
}
