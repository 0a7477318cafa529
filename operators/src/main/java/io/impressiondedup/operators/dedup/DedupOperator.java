package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.operators.stats.RecordOutcome;
import io.impressiondedup.operators.stats.StatsOutcome;
import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops duplicate impressions with time-bucketed filters held in keyed state: Bloom filters by default, or
 * fingerprint stores ({@link DedupPlan#stateFormat()}, {@code --state-format}; each bucket keeps the format it was
 * created in, {@link ShardFilters}). Keyed by shard
 * ({@link ShardKeySelector}); the first impression of a (request, ad) passes, later copies are dropped.
 *
 * <p><b>Per record</b> (the rules are {@link TimeBuckets}'s, numbered there). The record is checked
 * against each live bucket of its shard that can hold a copy within the retention ({@code [t -
 * retention, t + retention]}); a hit means duplicate: counted, optionally emitted to {@link
 * #DUPLICATES}, and dropped (also when the record is late: then it is counted in {@code
 * late-duplicates} too). A miss everywhere means unique if the record is in time: it is inserted into
 * the filter of its own event-time bucket (created on first use, with an event-time timer at the
 * bucket's expiry) and emitted. A late miss is counted as {@code late} and handled by the {@link
 * LatePolicy}: dead-lettered to {@link #LATE}, emitted with the header {@value #LATE_HEADER} (and
 * inserted into {@link TimeBuckets#lateInsertBucket}, so its later copies are duplicates), or dropped.
 * Duplicates are not inserted, so the retention runs from the first occurrence.
 *
 * <p><b>State layout</b> ({@link DedupStateLayout} names it). Per shard: a {@code ValueState<BucketFilters>} with each live bucket's filter
 * metadata (a few dozen bytes per bucket), and a {@code MapState<Long, PageGroup>} with every page of
 * every filter, the pages at one page index of all filters of one geometry together ({@code
 * PageAddress}). A record checked against three buckets reads one entry and writes at most one (one
 * more per growth layer); pages are created on first write; nothing ever serializes a whole filter.
 *
 * <p><b>Directory cache.</b> The bucket directory of each shard is needed by every record and changes
 * with every unique one, so it is cached on the heap ({@link BucketDirectoryCache}) and written back
 * to keyed state in {@link #prepareSnapshotPreBarrier}, before any barrier leaves the operator, and
 * when the input ends; on restore the cache is rebuilt from state.
 *
 * <p><b>Page cache.</b> On RocksDB the Bloom probe's read of a page group and a unique record's write of
 * it are most of the operator's time, so page groups can be cached on the heap too ({@link
 * PageCache}, {@link DedupSettings#pageCacheBudget()}; fingerprint pages likewise, with the budget going to the format of new buckets): bounded, written back on eviction and at the
 * same two moments as the directory; a bucket's expiry first writes back and forgets its shard's groups.
 * The state layout is the same with or without it.
 *
 * <p><b>Lateness.</b> A record is late ({@link TimeBuckets#isLate}: more than the allowed lateness
 * behind) against the higher of Flink's watermark and the watermark this operator had reached at its
 * last checkpoint, kept in operator state ({@link DedupSettings#resetLatenessWatermark()} ignores it on
 * restore, to recover from a watermark bad data pushed too far): after a restore Flink's watermark starts from nothing while the buckets expired before the
 * failure stay gone, and a record whose copy was in one of them must not pass as new. (Before the
 * first watermark of a fresh start nothing is late, and nothing can be missed: no bucket has been
 * dropped yet.) Lateness is deliberately not judged from the newest event time seen: records are
 * shuffled from all partitions, and one partition may trail another by a day in a replay.
 *
 * <p><b>End of input.</b> The watermark of the end of event time ({@code Long.MAX_VALUE}), which Flink sends when
 * a bounded input has been read and when a job is stopped with {@code --drain}, expires no bucket and is not
 * kept as the lateness watermark ({@link #processWatermark}): a savepoint taken after it resumes exactly like
 * one taken without it, with every live bucket and the watermark the data had reached. Were it obeyed, every
 * bucket would expire (copies of stored impressions would pass after the resume) and every resumed record
 * would be late.
 *
 * <p><b>Time.</b> Expiry is by event time (timers at {@link TimeBuckets#expiryOf}, bucket end +
 * retention + allowed lateness, one per shard and bucket, namespaced by bucket id); replays expire
 * buckets as the original run did. A timer that fires before that (restored from state v1, whose timers are at
 * bucket end + retention) is moved, not obeyed. A processing-time safety
 * timer per shard and bucket ({@link DedupSettings#stateTtl()} after its creation) drops a bucket that
 * event time has not expired by then, so state stays bounded if the watermark ever stops. It is used
 * instead of Flink's state TTL, which gives the same bound but whose incremental cleanup on the heap backend
 * visits the state table at every access and halved this operator's throughput there (measured:
 * 0.64M vs 1.27M events/s); a timer per bucket costs nothing per record.
 *
 * <p><b>Shard state cap.</b> A bucket over its planned capacity grows, keeping the FPP (a Bloom filter adds a layer,
 * {@link ScalableBloomFilter}; a fingerprint part opens a band, {@code FingerprintPart}), until the growth of all of its
 * shard's buckets together would exceed the shard's growth allowance: the shard state cap ({@code --shard-state-cap}, 8x
 * the shard's planned state by default) less its planned state ({@link DedupPlan#shardGrowthAllowanceBytes()}; in the
 * fingerprint format less one more planned state, kept for the overflow sections: {@code
 * FingerprintStoreSizing#shardGrowthAllowanceBytes}). Past it <b>the shard trades FPP for memory</b>: its Bloom filters
 * add no layer and their newest layer over-fills; its fingerprint buckets open no band and take further values in their
 * overflow sections, which never grow past the bucket's planned state. Unique impressions of that shard are then
 * wrongly dropped at a rate above the configured FPP, rising with every further insert (the {@code estimated-fpp} gauge
 * shows it), while every other shard keeps its FPP and the job's memory stays bounded. Without the cap one request id
 * with millions of ad ids (all its ads share a shard) grows one bucket without bound. Each capped insert is counted
 * ({@code capped-insertions}); the first one of each shard and bucket is logged as a warning ({@link FilterGrowthWarnings}).
 *
 * <p><b>Time options</b> (bucket size, zone, retention, allowed lateness) are kept in operator state with the
 * event time before which records are late whatever the watermark ({@link TimeBuckets} rule 7), and checked on
 * restore by {@link TimeOptionsCheck}. A lateness watermark of the end of time (state v1-v3 drained by {@code stop
 * --drain} or the end of a bounded input, every bucket expired) is refused unless {@code --reset-lateness-watermark}.
 *
 * <p><b>Fingerprint secret.</b> The source may key request-id digests with a secret ({@link
 * FingerprintSecret}); this operator never sees it, only its check value ({@link
 * DedupSettings#fingerprintCheck()}), which it keeps in operator state like the shard count: a restore
 * with another secret, a secret onto state written without one, or none onto state written with one
 * fails naming {@code --fingerprint-secret-file} ({@link FingerprintCheck}). State v1 has no check
 * value and counts as written without a secret (versions: docs/COMPATIBILITY.md).
 *
 * <p><b>Dedup key.</b> The identity rule's description ({@link DedupSettings#dedupKey()}) is kept in
 * operator state too: a restore under another key fails naming {@code --dedup-key} unless {@code
 * --allow-dedup-key-change} ({@link DedupKeyCheck}); state without one is accepted.
 *
 * <p><b>Rescaling.</b> All state is keyed by shard, and shards map one-to-one onto key groups
 * ({@link ShardKeys}), so Flink moves whole filters with their key groups. The shard count itself
 * cannot change without breaking the request-to-filter mapping; it is kept in operator state and a
 * restore with another count fails with a message naming it.
 */
public final class DedupOperator extends AbstractStreamOperator<Impression>
        implements OneInputStreamOperator<Impression, Impression>, Triggerable<Integer, Long> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DedupOperator.class);

    /** Stable operator id: savepoints map state to it. Never change it. */
    public static final String UID = "impression-dedup";
    public static final String NAME = "Deduplicate impressions";

    /** Records too late to be deduplicated safely, as dead letters with reason {@code late}. */
    public static final OutputTag<DeadLetter> LATE = new OutputTag<>("late-impressions", DeadLetter.TYPE_INFO);
    /** Dropped duplicates, for audit; only emitted if {@link DedupSettings#emitDuplicates()}. */
    public static final OutputTag<Impression> DUPLICATES = new OutputTag<>("duplicate-impressions", Impression.TYPE_INFO);
    /**
     * Each record's outcome (unique, duplicate, late) with its input partition and event time, for the
     * reconciliation rows ({@code StatsPreAggregator}); only emitted if {@link DedupSettings#emitOutcomes()}.
     */
    public static final OutputTag<RecordOutcome> OUTCOMES = new OutputTag<>("dedup-outcomes", RecordOutcome.TYPE_INFO);

    /**
     * Job accumulators (live in the REST API, final in the job result) for the job-level account; each
     * is also a metric of the same name and the same count ({@link Tally}).
     */
    public static final String ACCUMULATOR_UNIQUE = DedupMetrics.UNIQUE;
    public static final String ACCUMULATOR_DUPLICATES = DedupMetrics.DUPLICATES;
    public static final String ACCUMULATOR_LATE = DedupMetrics.LATE;
    /** The part of {@link #ACCUMULATOR_DUPLICATES} that arrived past the allowed lateness. */
    public static final String ACCUMULATOR_LATE_DUPLICATES = DedupMetrics.LATE_DUPLICATES;

    /** Header on a late record forwarded under {@link LatePolicy#EMIT}. */
    public static final String LATE_HEADER = "dedup.late";
    private static final byte[] LATE_HEADER_VALUE = "true".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final DedupSettings settings;

    private transient TimeBuckets buckets;
    private transient DedupPlan plan;
    private transient ValueState<BucketFilters> directoryState;
    private transient MapState<Long, PageGroup> pageState;
    private transient MapStatePageGroups pages;
    private transient MapState<Long, FingerprintPage> fingerprintPageState;
    private transient MapStateFingerprintPages fingerprintPages;
    /** The write-back cache of page groups ({@link DedupSettings#pageCacheBudget()}), or {@code null} if off. */
    private transient PageCache<PageGroup> pageCache;
    /** The write-back cache of fingerprint pages, or {@code null}: the cache serves the format of new buckets only. */
    private transient PageCache<FingerprintPage> fingerprintPageCache;
    private transient InternalTimerService<Long> expiryTimers;
    private transient ListState<Integer> shardCountState;
    private transient ListState<Long> fingerprintCheckState;
    private transient ListState<Long> watermarkState;
    private transient long restoredWatermark;
    /** The event time before which records are late whatever the watermark ({@link TimeBuckets} rule 7), or {@code Long.MIN_VALUE}. */
    private transient long restoredLateBefore;
    private transient ListState<Long> lateBeforeState;
    private transient long safetyTtlMillis;
    private transient ShardKeys shardKeys;
    /** Per shard (index = shard number, not Flink key): the bucket directory, cached on the heap. */
    private transient BucketDirectoryCache directories;
    /** Counts and warns when a filter outgrows its plan: rare, off the per-record path of a filter within it. */
    private transient FilterGrowthWarnings growthWarnings;
    private transient DedupMetrics metrics;

    /** Where a copy of the current record is, and its insertion: shared with the state tools' bootstrap. */
    private transient ShardFilters shardFilters;

    public DedupOperator(DedupSettings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        plan = settings.plan();
        buckets = plan.timeBuckets().copy();

        directoryState = getPartitionedState(DedupStateLayout.directory());
        pageState = getPartitionedState(DedupStateLayout.pages());
        fingerprintPageState = getPartitionedState(DedupStateLayout.fingerprintPages());

        shardCountState = context.getOperatorStateStore()
                .getUnionListState(DedupStateLayout.shardCount());
        if (context.isRestored()) {
            ShardCountCheck.verify(shardCountState.get(), plan.shards());
        }
        shardCountState.update(java.util.List.of(plan.shards()));

        fingerprintCheckState = context.getOperatorStateStore()
                .getUnionListState(DedupStateLayout.fingerprintCheck());
        if (context.isRestored()) {
            FingerprintCheck.verify(fingerprintCheckState.get(), settings.fingerprintCheck());
        }
        fingerprintCheckState.update(java.util.List.of(settings.fingerprintCheck()));

        ListState<String> dedupKeyState = context.getOperatorStateStore().getUnionListState(DedupStateLayout.dedupKey());
        if (context.isRestored()) {
            DedupKeyCheck.verify(dedupKeyState.get(), settings.dedupKey(), settings.allowDedupKeyChange());
        }
        dedupKeyState.update(java.util.List.of(settings.dedupKey()));
        shardFilters = new ShardFilters(plan);

        watermarkState = context.getOperatorStateStore()
                .getUnionListState(DedupStateLayout.latenessWatermark());
        safetyTtlMillis = settings.stateTtl().toMillis();
        restoredWatermark = Long.MIN_VALUE;
        for (Long watermark : watermarkState.get()) {
            restoredWatermark = Math.max(restoredWatermark, watermark);
        }

        ListState<String> timeOptionsState = context.getOperatorStateStore().getUnionListState(DedupStateLayout.timeOptions());
        if (context.isRestored()) {
            TimeOptionsCheck.verify(timeOptionsState.get(), buckets, settings.allowRetentionIncrease());
            if (restoredWatermark == Long.MAX_VALUE && !settings.resetLatenessWatermark()) {
                throw new IllegalStateException("The dedup state's lateness watermark is the end of time: it was saved after"
                        + " stop --drain (or the end of a bounded input) by a release that expired every bucket there. Every record"
                        + " would be late and no copy of an earlier impression would be found. Start without state, or run with"
                        + " --reset-lateness-watermark true to use it anyway (copies of the impressions it held pass once).");
            }
        }
        timeOptionsState.update(java.util.List.of(buckets.description()));
        lateBeforeState = context.getOperatorStateStore().getUnionListState(DedupStateLayout.lateBefore());
        restoredLateBefore = TimeOptionsCheck.restoredLateBefore(lateBeforeState.get(), buckets, restoredWatermark);

        if (settings.resetLatenessWatermark() && restoredWatermark != Long.MIN_VALUE) {
            LOG.warn("Ignoring the restored lateness watermark {} (--reset-lateness-watermark): lateness is judged by this"
                    + " run's watermark only. Copies of impressions in buckets already dropped can pass as new.",
                    Instant.ofEpochMilli(restoredWatermark));
            restoredWatermark = Long.MIN_VALUE;
            restoredLateBefore = Long.MIN_VALUE;
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long watermark = latenessWatermark();
        watermarkState.update(java.util.List.of(watermark));
        lateBeforeState.update(java.util.List.of(buckets.lateBefore(watermark, restoredLateBefore)));
    }

    /** The watermark lateness is judged against (see the class comment). */
    private long latenessWatermark() {
        return Math.max(expiryTimers.currentWatermark(), restoredWatermark);
    }

    @Override
    public void open() throws Exception {
        super.open();
        expiryTimers = getInternalTimerService(DedupStateLayout.EXPIRY_TIMERS, LongSerializer.INSTANCE, this);
        metrics = new DedupMetrics(getMetricGroup(), getRuntimeContext(), plan.fpp());
        shardKeys = new ShardKeys(plan.shards(), getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
        directories = new BucketDirectoryCache(directoryState, plan.shards(), shard -> setCurrentKey(shardKeys.keyOf(shard)));
        // The cache's budget goes to the format new buckets are created in; the other format's pages, live only while a
        // change of --state-format works through the retention, are read and written uncached.
        boolean fingerprints = plan.stateFormat() == StateFormat.FINGERPRINTS;
        long cacheBytes = settings.pageCacheBudget().resolve(getContainingTask().getEnvironment().getTaskManagerInfo().getConfiguration(),
                Runtime.getRuntime().maxMemory());
        int cachedPages = fingerprints ? PageCache.fingerprintPagesFor(cacheBytes, plan) : PageCache.groupsFor(cacheBytes, plan);
        boolean copies = !getKeyedStateBackend().isSafeToReuseKVState();
        java.util.function.IntConsumer selectShardKey = shard -> setCurrentKey(shardKeys.keyOf(shard));
        pageCache = cachedPages == 0 || fingerprints ? null : new PageCache<>(pageState, "Bloom page group", cacheBytes,
                PageGroup::heapBytes, cachedPages, selectShardKey, copies ? PageGroup::copy : null, metrics.pageCacheHits,
                metrics.pageCacheMisses, metrics.pageCacheDirtyEvictions);
        fingerprintPageCache = cachedPages == 0 || !fingerprints ? null : new PageCache<>(fingerprintPageState, "fingerprint page",
                cacheBytes, FingerprintPage::heapBytes, cachedPages, selectShardKey, copies ? FingerprintPage::copy : null,
                metrics.pageCacheHits, metrics.pageCacheMisses, metrics.pageCacheDirtyEvictions);
        pages = new MapStatePageGroups(pageState, pageCache);
        fingerprintPages = new MapStateFingerprintPages(fingerprintPageState, fingerprintPageCache);
        LOG.info("New buckets are stored as {} (--state-format); page cache: {}", plan.stateFormat().optionValue(), cachedPages == 0 ? "off"
                : cachedPages + (fingerprints ? " fingerprint pages (" : " Bloom page groups (") + cacheBytes + " bytes"
                        + (settings.pageCacheBudget().isShareOfTaskHeap() ? ", " + settings.pageCacheBudget().describe() : "") + ", at "
                        + (fingerprints ? PageCache.bytesPerFingerprintPage(plan) : PageCache.bytesPerGroup(plan)) + " each)");
        growthWarnings = new FilterGrowthWarnings(plan, buckets, metrics.filterExpansions, metrics.cappedInsertions);
        getKeyedStateBackend().applyToAllKeys(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                DedupStateLayout.directory(),
                (key, state) -> {
                    BucketFilters restored = state.value();
                    if (restored != null) {
                        directories.restore(shardKeys.shardOf((Integer) key), restored);
                    }
                });
        registerTimersOfRestoredBuckets();
        updateGauges();
        long interval = settings.gaugeInterval().toMillis();
        getProcessingTimeService().scheduleWithFixedDelay(time -> updateGauges(), interval, interval);
    }

    /**
     * Registers the expiry timers of every restored bucket again (see {@link DedupStateLayout}): the
     * timers are a function of the directory, and state the state tools wrote has none. An event-time
     * timer already there is the same timer (same key, bucket and time), so this adds nothing to state
     * the job wrote. A processing-time safety timer is added at now + {@link DedupSettings#stateTtl()};
     * the one registered when the bucket was created, if any, is earlier and fires first, so the bound
     * on a bucket's life is unchanged.
     */
    private void registerTimersOfRestoredBuckets() {
        Object currentKey = getCurrentKey();
        long now = expiryTimers.currentProcessingTime();
        BucketFilters[] restored = directories.directories();
        for (int shard = 0; shard < restored.length; shard++) {
            BucketFilters directory = restored[shard];
            if (directory == null || directory.isEmpty()) {
                continue;
            }
            setCurrentKey(shardKeys.keyOf(shard));
            for (int i = 0; i < directory.size(); i++) {
                long bucket = directory.bucketAt(i);
                expiryTimers.registerEventTimeTimer(bucket, buckets.expiryOf(bucket));
                if (safetyTtlMillis > 0) {
                    expiryTimers.registerProcessingTimeTimer(bucket, now + safetyTtlMillis);
                }
            }
        }
        if (currentKey != null) {
            setCurrentKey(currentKey);
        }
    }

    @Override
    public void processElement(StreamRecord<Impression> element) throws Exception {
        Impression impression = element.getValue();
        metrics.recordsIn.inc();
        long eventTime = impression.eventTime();
        long watermark = latenessWatermark();
        boolean late = buckets.isLate(eventTime, watermark, restoredLateBefore);

        int shard = FingerprintScheme.shardOf(impression.digestHigh(), plan.shards());
        BucketFilters directory = directories.get(shard);
        shardFilters.beginRecord(impression.digestHigh(), impression.digestLow(), HashMixing.adIdHash(impression.adId()), impression.keyedAdIdHash());
        pages.beginRecord(shard);
        fingerprintPages.beginRecord(shard);

        // A late record is checked against live buckets only (TimeBuckets rule 5).
        if (shardFilters.bucketHolding(directory, pages, fingerprintPages, eventTime, late, watermark) != TimeBuckets.NO_BUCKET) {
            metrics.duplicates.inc();
            if (late) {
                metrics.lateDuplicates.inc();
            }
            emitOutcome(impression, StatsOutcome.DUPLICATE, element);
            if (settings.emitDuplicates()) {
                output.collect(DUPLICATES, element);
            }
            return;
        }

        if (late) {
            onLateMiss(element, shard, directory, watermark);
            return;
        }
        insert(shard, directory, buckets.bucketOf(eventTime));
        metrics.unique.inc();
        emitOutcome(impression, StatsOutcome.UNIQUE, element);
        output.collect(element);
    }

    /** The record's outcome, for the reconciliation rows, if they are on. */
    private void emitOutcome(Impression impression, StatsOutcome outcome, StreamRecord<Impression> element) {
        if (settings.emitOutcomes()) {
            RawKafkaRecord raw = impression.raw();
            output.collect(OUTCOMES, new StreamRecord<>(new RecordOutcome(raw.topic(), raw.partition(), impression.eventTime(), outcome),
                    element.getTimestamp()));
        }
    }

    /** A late record that is not a copy of anything live: counted as late, then as {@link LatePolicy} says. */
    private void onLateMiss(StreamRecord<Impression> element, int shard, BucketFilters directory, long watermark)
            throws Exception {
        Impression impression = element.getValue();
        metrics.late.inc();
        emitOutcome(impression, StatsOutcome.LATE, element);
        switch (settings.latePolicy()) {
            case DEAD_LETTER:
                metrics.lateDeadLetters.inc();
                output.collect(LATE, new StreamRecord<>(LateDeadLetter.of(impression, buckets, watermark, restoredLateBefore),
                        element.getTimestamp()));
                break;
            case EMIT:
                long bucket = buckets.lateInsertBucket(impression.eventTime(), watermark);
                if (bucket != TimeBuckets.NO_BUCKET) {
                    insert(shard, directory, bucket);
                }
                output.collect(new StreamRecord<>(
                        impression.withRaw(impression.raw().withHeader(LATE_HEADER, LATE_HEADER_VALUE)), element.getTimestamp()));
                break;
            case DROP:
                break;
            default:
                throw new IllegalStateException("Unknown late policy " + settings.latePolicy());
        }
    }

    /**
     * Inserts the current record into {@code bucket}'s filter of {@code shard} ({@link ShardFilters#insert}), registering
     * the timers of a filter it creates.
     */
    private void insert(int shard, BucketFilters directory, long bucket) throws Exception {
        Insertion insertion = shardFilters.insert(directory, pages, fingerprintPages, bucket);
        if (shardFilters.createdFilter()) {
            expiryTimers.registerEventTimeTimer(bucket, buckets.expiryOf(bucket));
            if (safetyTtlMillis > 0) {
                expiryTimers.registerProcessingTimeTimer(bucket, expiryTimers.currentProcessingTime() + safetyTtlMillis);
            }
        }
        switch (insertion) {
            case GREW:
                growthWarnings.grew(shard, bucket, directory.get(bucket));
                break;
            case OVER_FILLED:
                growthWarnings.insertedPastCap(shard, bucket, directory.get(bucket));
                break;
            default:
                break;
        }
        directories.markChanged(shard);
    }

    /**
     * A bucket's expiry timer. Timers restored from state v1, at bucket end + retention (without allowed
     * lateness), fire before {@link TimeBuckets#expiryOf}: such a bucket is kept and its timer moved to the
     * current rule's expiry, so no bucket of restored state is dropped early.
     */
    @Override
    public void onEventTime(InternalTimer<Integer, Long> timer) throws Exception {
        long bucket = timer.getNamespace();
        long expiry = buckets.expiryOf(bucket);
        if (timer.getTimestamp() < expiry && expiryTimers.currentWatermark() < expiry) {
            expiryTimers.registerEventTimeTimer(bucket, expiry);
            metrics.bucketExpiriesDeferred.inc();
            return;
        }
        if (dropBucket(shardKeys.shardOf(timer.getKey()), bucket)) {
            metrics.bucketsExpired.inc();
        }
    }

    /**
     * The safety timer of a bucket event time has not expired: the watermark has not moved past it in
     * the safety TTL. Dropping it keeps state bounded; a copy of one of its impressions arriving later
     * could pass, which is why the TTL is days longer than any bucket's normal life.
     */
    @Override
    public void onProcessingTime(InternalTimer<Integer, Long> timer) throws Exception {
        int shard = shardKeys.shardOf(timer.getKey());
        long bucket = timer.getNamespace();
        if (dropBucket(shard, bucket)) {
            expiryTimers.deleteEventTimeTimer(bucket, buckets.expiryOf(bucket));
            metrics.bucketsDroppedBySafetyTtl.inc();
            LOG.warn("Bucket {} of shard {} dropped by the safety TTL ({}) before the watermark ({}) expired it:"
                            + " is event time stuck (a partition without data and no idleness set)?",
                    Instant.ofEpochMilli(buckets.startOf(bucket)), shard, settings.stateTtl(),
                    Instant.ofEpochMilli(expiryTimers.currentWatermark()));
        }
    }

    /** Removes a bucket's filter and pages from a shard (its key is current); returns whether it was there. */
    private boolean dropBucket(int shard, long bucket) throws Exception {
        BucketFilter dropped = directories.get(shard).remove(bucket);
        if (dropped instanceof ScalableBloomFilter) {
            pages.removeBucket(shard, bucket);
        } else if (dropped != null) {
            fingerprintPages.removeBucket(shard, bucket);
        }
        if (dropped != null) {
            growthWarnings.forget(shard, bucket);
        }
        directories.writeThrough(shard); // rare: state never lists a bucket whose pages are gone
        return dropped != null;
    }

    /**
     * Event time ends ({@link Watermark#MAX_WATERMARK}: a bounded input read to its end, or {@code stop --drain}):
     * forwarded, but neither fed to the expiry timers nor taken as the lateness watermark. The input has ended,
     * not time: a savepoint taken now may be resumed, and the resumed job must find every bucket it had and judge
     * lateness from the last watermark that came from data (see the class comment, <i>End of input</i>).
     */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() == Long.MAX_VALUE) {
            output.emitWatermark(mark);
            return;
        }
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flushCaches();
        updateGauges();
    }

    /** Recomputes the gauges on the task thread: the directories' figures and the page cache's bytes. */
    private void updateGauges() {
        metrics.updateGauges(directories.directories());
        metrics.pageCacheBytes = (pageCache != null ? pageCache.heldBytes() : 0)
                + (fingerprintPageCache != null ? fingerprintPageCache.heldBytes() : 0);
    }

    /** Writes the cached directories and dirty page groups back to keyed state: before a barrier, and at end of input. */
    private void flushCaches() throws Exception {
        directories.flush();
        if (fingerprintPageCache != null) {
            metrics.pageGroupsFlushed = fingerprintPageCache.flush();
        }
        if (pageCache != null) {
            metrics.pageGroupsFlushed = pageCache.flush();
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        LOG.info("Checkpoint {}, dedup subtask {}: {}", checkpointId, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), share());
    }

    /** The subtask's share of the account, as logged at every checkpoint and at the end of input. */
    private String share() {
        return String.format(java.util.Locale.ROOT,
                "records-in %d = unique %d + duplicates %d + late %d (late duplicates %d); %d live shard-buckets, %d filter expansions,"
                        + " %d capped insertions",
                metrics.recordsIn.getCount(), metrics.unique.count(), metrics.duplicates.count(), metrics.late.count(),
                metrics.lateDuplicates.count(), metrics.liveBuckets(), metrics.filterExpansions.getCount(),
                metrics.cappedInsertions.getCount());
    }

    @Override
    public void finish() throws Exception {
        flushCaches();
        LOG.info("Final share, dedup subtask {}: {}", getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), share());
        super.finish();
    }
}
