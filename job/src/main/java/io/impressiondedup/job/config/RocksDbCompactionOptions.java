package io.impressiondedup.job.config;

import java.util.Collection;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * The job's RocksDB compaction trigger: a column family compacts its level 0 into level 1 once it holds {@value
 * #LEVEL0_FILES_TO_COMPACT} files, not RocksDB's 4. Set by {@link RocksDbDefaults} as {@code
 * state.backend.rocksdb.options-factory} where the cluster's configuration names no factory of its own.
 *
 * <p><b>Why.</b> Each checkpoint flushes every column family that changed into one new level-0 file, and an
 * incremental checkpoint uploads the files that are new since the last one, compaction outputs included. The dedup
 * state's column families are written all over their key range (a shard's key leads every key, and every shard
 * changes in an interval), so each level-0 compaction rewrites the whole of level 1: the page journal's appended
 * entries, and, where pages are written, the pages, up to the whole state. With RocksDB's trigger of 4 the journal's
 * column family re-uploads everything it holds every fourth checkpoint: n checkpoints that append j bytes each upload
 * about n j (1 + n / 8) instead of n j (the k-th compaction rewrites the 4 k j bytes appended so far), the fingerprint
 * format's checkpoint bytes beyond its journal at 50M impressions in state (3.9 B per unique impression against the
 * journal's 2.55 B). At 8 it is n j (1 + n / 16), and by the same arithmetic the Bloom format's pages, which its dirty
 * evictions write, set off a rewrite of all the pages a subtask holds half as often (computed; compactions not counted). Measured with 50M impressions restored on a cluster with
 * Flink's defaults, 4M records, against the trigger of 4 (bench/results/2026-12-07-flink-defaults-50m-level0-trigger-8.txt):
 * checkpoint bytes per unique impression after the restore's upload, fingerprints 3.93 -> 2.68, Bloom 239 -> 156; the
 * largest full checkpoint 1.08x the savepoint for fingerprints either way, 1.62-1.68x -> 1.49-1.57x for Bloom.
 *
 * <p><b>What it costs.</b> Up to {@value #LEVEL0_FILES_TO_COMPACT} level-0 files a column family: a read of a key
 * that is not in the page cache checks each of them (their bloom filters, which the job turns on, are there to answer
 * such checks without a block read: RocksDB's design, not measured here), and a checkpoint's full size holds the page versions those files still carry until the
 * next compaction. With a small state, where each checkpoint writes nearly every Bloom page, that is up to 7 copies of
 * the pages instead of 3 (computed from the trigger): the largest full checkpoint of a 4M run at a 1.5M plan went from 45-49 MB to 66 MB, while it
 * uploaded 0.77x the bytes; the TaskManager's CPU per record was 1-9% higher in every pair of those runs
 * (bench/results/2026-12-07-flink-defaults-small-level0-trigger-8.txt). With 50M restored on this project's cluster
 * (deploy/conf, less managed memory), where the Bloom format's evictions write more, its largest full checkpoint went
 * from 1.50-1.55x to 1.79-2.08x the savepoint while it uploaded 0.78x the bytes; the fingerprint format's stayed at 1.08x
 * (bench/results/2026-12-07-cluster-50m-level0-trigger-8.txt). The write stalls keep RocksDB's distance from the
 * trigger (slowdown at 16 files more, stop at 32).
 */
public final class RocksDbCompactionOptions implements RocksDBOptionsFactory {

    private static final long serialVersionUID = 1L;

    /** Level-0 files that start a compaction into level 1 (RocksDB's default: 4). */
    public static final int LEVEL0_FILES_TO_COMPACT = 8;
    /** Level-0 files at which writes slow down, and stop: RocksDB's distances from its trigger (20 and 36 for 4). */
    static final int LEVEL0_FILES_TO_SLOW_DOWN = LEVEL0_FILES_TO_COMPACT + 16;
    static final int LEVEL0_FILES_TO_STOP = LEVEL0_FILES_TO_COMPACT + 32;

    @Override
    public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions;
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions.setLevel0FileNumCompactionTrigger(LEVEL0_FILES_TO_COMPACT)
                .setLevel0SlowdownWritesTrigger(LEVEL0_FILES_TO_SLOW_DOWN)
                .setLevel0StopWritesTrigger(LEVEL0_FILES_TO_STOP);
    }
}
