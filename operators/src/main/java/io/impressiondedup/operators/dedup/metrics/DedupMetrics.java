package io.impressiondedup.operators.dedup.metrics;

import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.FilterStatistics;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The operator's metrics, registered directly in its metric group.
 *
 * <p>Counters: {@code records-in} = {@code unique} + {@code duplicates} + {@code late} at every
 * instant; {@code late-duplicates} is the part of {@code duplicates} that arrived past the allowed
 * lateness and was still found in a live bucket (a copy, not a lost impression); the part of {@code late} sent to the
 * dead-letter output ({@code --late-policy dead-letter}) is also counted as {@link DeadLetterMetric} with reason
 * {@code late}, next to the router's reasons; {@code filter-expansions} counts layers added because a bucket ran over its planned
 * capacity; {@code capped-insertions} unique impressions inserted into a full layer because their
 * shard reached the shard state cap (or the filter its most layers): nonzero means some shard trades
 * FPP for memory, which {@code estimated-fpp} then shows; {@code buckets-expired} counts (shard, bucket) filters dropped by their event-time timer,
 * {@code buckets-dropped-by-safety-ttl} those dropped by the processing-time safety timer (nonzero
 * means event time stalled), {@code bucket-expiries-deferred} expiry timers that fired before the
 * current rule allowed (timers of state v1, set at bucket end + retention) and were moved.
 * With the page-group cache on ({@code PageCache}): {@code page-cache-hits} and {@code
 * page-cache-misses} count group lookups it answered and those that read state, {@code
 * page-cache-dirty-evictions} groups written to state to make room (a high rate against misses means the
 * cache is too small for the live state); gauge {@code page-groups-flushed} the dirty groups written back
 * at the last checkpoint barrier (the cost the cache moved there), gauge {@code page-cache-bytes} the heap bytes the cache
 * holds (within its budget, {@code --page-cache-bytes}, however large the pages grow).
 *
 * <p>Gauges, over the shards of this subtask ({@link FilterStatistics}, also what the state tools'
 * {@code inspect} shows for a savepoint), recomputed on the task thread every few seconds (a
 * reporter thread must never read keyed state): {@code live-buckets} (shard-bucket filters held),
 * {@code bloom-bytes} (their bits at full size: pages are created lazily, so state may be smaller
 * early in a bucket; Bloom buckets only), {@code fingerprint-buckets} and {@code fingerprints} (the shard-buckets in
 * the fingerprint format and the distinct fingerprints they hold: exact counts), {@code max-fill-ratio} (the fullest filter's inserts over its planned
 * capacity: above 1 the traffic is over plan and layers are being added), and {@code estimated-fpp}
 * (for the worst shard, the summed estimated FPP of its live buckets: the chance a new unique
 * impression is wrongly dropped now; it counts each layer at its
 * current fill, so a layer over-filled past the shard state cap raises it above the budget), and {@code
 * configured-fpp} (that budget, {@code --fpp}: a constant, exported so a dashboard or an alert compares the two
 * without being told the job's options).
 */
public final class DedupMetrics {

    public static final String RECORDS_IN = "records-in";
    public static final String UNIQUE = "unique";
    public static final String DUPLICATES = "duplicates";
    public static final String LATE = "late";
    public static final String LATE_DUPLICATES = "late-duplicates";
    public static final String BUCKET_EXPIRIES_DEFERRED = "bucket-expiries-deferred";
    public static final String FILTER_EXPANSIONS = "filter-expansions";
    public static final String CAPPED_INSERTIONS = "capped-insertions";
    public static final String BUCKETS_EXPIRED = "buckets-expired";
    public static final String BUCKETS_DROPPED_BY_SAFETY_TTL = "buckets-dropped-by-safety-ttl";
    public static final String PAGE_CACHE_HITS = "page-cache-hits";
    public static final String PAGE_CACHE_MISSES = "page-cache-misses";
    public static final String PAGE_CACHE_DIRTY_EVICTIONS = "page-cache-dirty-evictions";
    public static final String PAGE_GROUPS_FLUSHED = "page-groups-flushed";
    public static final String PAGE_CACHE_BYTES = "page-cache-bytes";
    public static final String LIVE_BUCKETS = "live-buckets";
    public static final String BLOOM_BYTES = "bloom-bytes";
    public static final String FINGERPRINT_BUCKETS = "fingerprint-buckets";
    public static final String FINGERPRINTS = "fingerprints";
    public static final String MAX_FILL_RATIO = "max-fill-ratio";
    public static final String ESTIMATED_FPP = "estimated-fpp";
    public static final String CONFIGURED_FPP = "configured-fpp";

    public final Counter recordsIn;
    public final Tally unique;
    public final Tally duplicates;
    public final Tally late;
    public final Tally lateDuplicates;
    /** Late records routed to the dead-letter output: {@code reason=late} / {@code dead-letters}. */
    public final Counter lateDeadLetters;
    public final Counter bucketExpiriesDeferred;
    public final Counter filterExpansions;
    public final Counter cappedInsertions;
    public final Counter bucketsExpired;
    public final Counter bucketsDroppedBySafetyTtl;
    public final Counter pageCacheHits;
    public final Counter pageCacheMisses;
    public final Counter pageCacheDirtyEvictions;
    /** Dirty page groups written back at the last checkpoint barrier (or end of input). */
    public volatile int pageGroupsFlushed;
    /** Heap bytes the page cache held at the last gauge update (the task thread sets it). */
    public volatile long pageCacheBytes;

    private volatile int liveBuckets;
    private volatile long bloomBytes;
    private volatile int fingerprintBuckets;
    private volatile long fingerprints;
    private volatile double maxFillRatio;
    private volatile double estimatedFpp;

    /**
     * Registers the metrics in {@code group}, and the account's four counts as accumulators of {@code context} too;
     * {@code configuredFpp} is the plan's false-positive budget.
     */
    public DedupMetrics(MetricGroup group, RuntimeContext context, double configuredFpp) {
        recordsIn = group.counter(RECORDS_IN);
        unique = Tally.register(UNIQUE, group, context);
        duplicates = Tally.register(DUPLICATES, group, context);
        late = Tally.register(LATE, group, context);
        lateDuplicates = Tally.register(LATE_DUPLICATES, group, context);
        lateDeadLetters = DeadLetterMetric.register(group, DeadLetterReason.LATE);
        bucketExpiriesDeferred = group.counter(BUCKET_EXPIRIES_DEFERRED);
        filterExpansions = group.counter(FILTER_EXPANSIONS);
        cappedInsertions = group.counter(CAPPED_INSERTIONS);
        bucketsExpired = group.counter(BUCKETS_EXPIRED);
        bucketsDroppedBySafetyTtl = group.counter(BUCKETS_DROPPED_BY_SAFETY_TTL);
        pageCacheHits = group.counter(PAGE_CACHE_HITS);
        pageCacheMisses = group.counter(PAGE_CACHE_MISSES);
        pageCacheDirtyEvictions = group.counter(PAGE_CACHE_DIRTY_EVICTIONS);
        group.gauge(PAGE_GROUPS_FLUSHED, (Gauge<Integer>) () -> pageGroupsFlushed);
        group.gauge(PAGE_CACHE_BYTES, (Gauge<Long>) () -> pageCacheBytes);
        group.gauge(LIVE_BUCKETS, (Gauge<Integer>) () -> liveBuckets);
        group.gauge(BLOOM_BYTES, (Gauge<Long>) () -> bloomBytes);
        group.gauge(FINGERPRINT_BUCKETS, (Gauge<Integer>) () -> fingerprintBuckets);
        group.gauge(FINGERPRINTS, (Gauge<Long>) () -> fingerprints);
        group.gauge(MAX_FILL_RATIO, (Gauge<Double>) () -> maxFillRatio);
        group.gauge(ESTIMATED_FPP, (Gauge<Double>) () -> estimatedFpp);
        group.gauge(CONFIGURED_FPP, (Gauge<Double>) () -> configuredFpp);
    }

    public int liveBuckets() {
        return liveBuckets;
    }

    /**
     * Recomputes the gauges from the shards' directories ({@link FilterStatistics}) and the heap the page cache holds;
     * call on the task thread.
     */
    public void updateGauges(BucketFilters[] directories, long pageCacheHeldBytes) {
        pageCacheBytes = pageCacheHeldBytes;
        FilterStatistics statistics = FilterStatistics.of(directories);
        liveBuckets = statistics.liveBuckets();
        bloomBytes = statistics.bloomBytes();
        fingerprintBuckets = statistics.fingerprintBuckets();
        fingerprints = statistics.fingerprints();
        maxFillRatio = statistics.maxFillRatio();
        estimatedFpp = statistics.worstShardEstimatedFpp();
    }

    /**
     * The page cache's counts so far, as the operator logs them at the end of input: on a state larger than the cache,
     * what a run's speed turns on (a miss is a state read, a dirty eviction a state write).
     */
    public String pageCacheFigures() {
        return String.format(java.util.Locale.ROOT, "page cache: %d hits, %d misses, %d dirty evictions, %d bytes held",
                pageCacheHits.getCount(), pageCacheMisses.getCount(), pageCacheDirtyEvictions.getCount(), pageCacheBytes);
    }

    /** The subtask's share of the account, as the operator logs it at every checkpoint and at the end of input. */
    public String share() {
        return String.format(java.util.Locale.ROOT,
                "records-in %d = unique %d + duplicates %d + late %d (late duplicates %d); %d live shard-buckets, %d filter expansions,"
                        + " %d capped insertions",
                recordsIn.getCount(), unique.count(), duplicates.count(), late.count(), lateDuplicates.count(), liveBuckets(),
                filterExpansions.getCount(), cappedInsertions.getCount());
    }
}
