package io.impressiondedup.operators.dedup.restore;

/**
 * Whether restored dedup state was written with the shard count this job runs with. A request's shard is a function
 * of its digest and the shard count ({@code FingerprintScheme.shardOf}), so under another count most requests would
 * be looked up in other filters than they were stored in, and duplicates would pass: the count cannot change while
 * state is kept. Flink's rescaling moves whole shards between subtasks and is unaffected.
 */
final class ShardCountCheck {

    private ShardCountCheck() {}

    /** Fails, naming both counts, unless every restored shard count is {@code shards}. */
    static void verify(Iterable<Integer> restored, int shards) {
        for (Integer written : restored) {
            if (written != shards) {
                throw new IllegalStateException("The dedup state was written with " + written
                        + " shards, but this job runs with " + shards
                        + ". Requests would be looked up in the wrong filters and duplicates would pass."
                        + " Run with the shard count the state was written with, or start without state.");
            }
        }
    }
}
