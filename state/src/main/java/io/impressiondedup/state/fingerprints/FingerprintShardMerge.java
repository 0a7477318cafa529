package io.impressiondedup.state.fingerprints;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;

/**
 * The state of k shards rewritten as that of their one parent under a k times smaller shard count ({@code
 * dedup-tools reshape} to fewer shards): possible in the fingerprint format only, and without any loss. Old shard s
 * becomes part {@code s mod k} of new shard {@code s / k}; its directory's buckets are marked as parts of a merge
 * ({@link FingerprintBucket#asPartOfMerge}), the parts' directories are summed bucket by bucket ({@link #merge}), and
 * each of its pages moves to the parent's page key {@link #pageKeyInParent} unchanged, so a record meets exactly the
 * sections its old shard had (the reason, and why the FPP per lookup is kept: {@link FingerprintBucket}).
 *
 * <p>A Bloom filter cannot be merged so: its bits say nothing of which shard set them, and OR-ing k filters raises
 * the FPP of every lookup about k times. A shard holding a Bloom bucket is refused ({@link #refusal}).
 */
public final class FingerprintShardMerge {

    private FingerprintShardMerge() {}

    /** Why old shard {@code shard}'s {@code directory} cannot be merged, or {@code null} if it can. */
    public static String refusal(int shard, BucketFilters directory) {
        for (int i = 0; i < directory.size(); i++) {
            if (!(directory.filterAt(i) instanceof FingerprintBucket)) {
                return "bucket " + directory.bucketAt(i) + " of shard " + shard + " is in the " + directory.filterAt(i).format().optionValue()
                        + " format: only fingerprint buckets can be merged into fewer shards without raising their FPP (a Bloom"
                        + " filter's bits do not say which shard set them). Run with --state-format fingerprints until every"
                        + " Bloom bucket has expired (retention + allowed lateness + one bucket), or bootstrap a new savepoint"
                        + " with the shard count you want";
            }
        }
        return null;
    }

    /** The shard that old shard {@code shard} becomes part of under {@code k} times fewer shards. */
    public static int parentOf(int shard, int k) {
        return shard / k;
    }

    /** Old shard {@code shard}'s directory as one part of its parent ({@link #refusal} must be {@code null}). */
    public static BucketFilters asPart(int shard, BucketFilters directory, int k) {
        String refused = refusal(shard, directory);
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
        BucketFilters part = new BucketFilters();
        for (int i = 0; i < directory.size(); i++) {
            part.put(directory.bucketAt(i), ((FingerprintBucket) directory.filterAt(i)).asPartOfMerge(k));
        }
        return part;
    }

    /** Two parts' directories of one parent as one: a bucket in both holds both parts' fingerprints. */
    public static BucketFilters merge(BucketFilters a, BucketFilters b) {
        BucketFilters merged = a.copy();
        for (int i = 0; i < b.size(); i++) {
            long bucket = b.bucketAt(i);
            BucketFilter mine = merged.get(bucket);
            FingerprintBucket theirs = (FingerprintBucket) b.filterAt(i);
            merged.put(bucket, mine == null ? theirs.copy() : ((FingerprintBucket) mine).mergedWith(theirs));
        }
        return merged;
    }

    /** The key in the parent of old shard {@code shard}'s page at {@code key}: page {@code (shard mod k) C + p} of {@code k C}. */
    public static long pageKeyInParent(int shard, long key, int k) {
        long pageCount = FingerprintBucket.pageCountOf(key);
        long index = (long) (shard % k) * pageCount + FingerprintBucket.pageIndexOf(key);
        if (pageCount * k > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(pageCount + " pages x " + k + " do not fit a page key");
        }
        return FingerprintBucket.pageKey((int) (pageCount * k), (int) index);
    }
}
