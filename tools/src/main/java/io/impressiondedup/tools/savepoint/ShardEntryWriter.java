package io.impressiondedup.tools.savepoint;

/** Writes {@link ShardEntry}s back as keyed state, each under the key of its shard (see {@link DedupSavepointWriter}). */
final class ShardEntryWriter extends DedupStateWriter<ShardEntry> {

    private static final long serialVersionUID = 1L;

    ShardEntryWriter(int shards, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
        super(shards, fingerprintCheck, latenessWatermark, dedupKey);
    }

    @Override
    public void processElement(ShardEntry entry, Context context) throws Exception {
        if (entry.isDirectory()) {
            if (directory.value() != null) {
                throw new IllegalStateException("Two bucket directories for shard " + entry.shard);
            }
            directory.update(entry.directory());
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
