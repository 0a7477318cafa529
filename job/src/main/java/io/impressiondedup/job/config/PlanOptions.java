package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.operators.dedup.store.PageCacheBudget;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.ZoneId;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Turns the {@link DedupJobOptions#PLAN} options into the state's {@link DedupPlan}, and the page-group cache's size:
 * the one place that does, for the job, the {@code plan} command and {@code bootstrap} alike, so that what {@code plan}
 * prints is what the job builds.
 */
public final class PlanOptions {

    private PlanOptions() {}

    /**
     * The Bloom filter plan of {@code options} (the {@link DedupJobOptions#PLAN} options, and whether {@code
     * --fingerprint-secret-file} is given: new filters then hash ad ids keyed). Fails naming the capacity and shards
     * when they cannot be planned.
     */
    public static DedupPlan plan(ReadableConfig options) {
        int shards = options.getOptional(SHARDS).orElse(options.get(MAX_PARALLELISM));
        TimeBuckets buckets = timeBuckets(options);
        try {
            return DedupPlan.builder()
                    .capacityPerBucket(options.get(CAPACITY))
                    .fpp(options.get(FPP))
                    .shards(shards)
                    .timeBuckets(buckets)
                    // With a secret, new filters hash ad ids with its key: unkeyed, crafted ad ids collide under every request.
                    .fingerprintScheme(FingerprintScheme.withKeyBits(options.get(KEY_BITS))
                            .withAdIdsKeyed(options.getOptional(FINGERPRINT_SECRET_FILE).isPresent()))
                    .pageBytes(options.getOptional(PAGE_BYTES).orElse(options.get(STATE_BACKEND).defaultPageBytes()))
                    .shardStateCap(options.get(SHARD_STATE_CAP))
                    .stateFormat(options.get(STATE_FORMAT))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("--" + CAPACITY.key() + " " + options.get(CAPACITY) + " with --" + SHARDS.key() + " " + shards
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * The time buckets of {@code options} ({@code --bucket-size}, {@code --retention}, {@code --allowed-lateness},
     * {@code --zone}), as the job, {@code plan} and the tools read them. Fails naming the options when the size does not
     * fit the zone (a zone with daylight saving time takes whole days only).
     */
    public static TimeBuckets timeBuckets(ReadableConfig options) {
        try {
            return new TimeBuckets(options.get(BUCKET_SIZE), options.get(RETENTION), options.get(ALLOWED_LATENESS),
                    ZoneId.of(options.get(ZONE)));
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("--" + BUCKET_SIZE.key() + " with --" + ZONE.key() + ": " + e.getMessage(), e);
        }
    }

    /** The page cache's heap per subtask: {@code --page-cache-bytes}, else the state backend's default. */
    public static PageCacheBudget pageCacheBudget(ReadableConfig options) {
        return options.getOptional(PAGE_CACHE_BYTES).map(size -> PageCacheBudget.ofBytes(size.getBytes()))
                .orElse(options.get(STATE_BACKEND).defaultPageCacheBudget());
    }
}
