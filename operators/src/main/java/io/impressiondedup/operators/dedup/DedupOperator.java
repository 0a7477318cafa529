package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.operators.dedup.restore.RestoreContract;
import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.operators.dedup.store.ShardFilters;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.operators.stats.RecordOutcome;
import io.impressiondedup.operators.stats.StatsOutcome;
import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.MemoryAllocationException;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
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
 * ({@code ShardKeySelector}); the first impression of a (request, ad) passes, later copies are dropped.
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
 * <p><b>State layout</b> ({@link DedupStateLayout} names it). Per shard: a {@code ValueState<BucketFilters>} with each
 * live bucket's metadata (a few dozen bytes per bucket), and its pages ({@link FormatStores}: one store per state format).
 *
 * <p><b>Caches.</b> The bucket directory of each shard is needed by every record and changes with every unique
 * one, so it is cached on the heap ({@link BucketDirectoryCache}), and so are pages ({@link FormatStores}): the directories are
 * written back before any barrier leaves the operator, the pages (or their journal) as the snapshot is taken, and all of
 * them when the input ends; on restore the directory cache is rebuilt from state and the page journals redone.
 *
 * <p><b>Lateness.</b> A record is late ({@link TimeBuckets#isLate}) against the higher of Flink's watermark and the
 * watermark this operator had reached at its last checkpoint, kept by the {@link RestoreContract} with what else a
 * restore must match (shard count, secret, dedup key, time options). Lateness is deliberately not judged from the newest
 * event time seen: records are shuffled from all partitions, and one partition may trail another by a day in a replay.
 *
 * <p><b>Time.</b> A bucket expires by event time, at {@link TimeBuckets#expiryOf}, or by a processing-time safety
 * timer if the watermark ever stops ({@link BucketExpiry}).
 *
 * <p><b>Shard state cap.</b> Past {@code --shard-state-cap} a shard trades FPP for memory ({@link ShardFilters} says how;
 * {@link FilterGrowthWarnings} counts and logs it).
 */
public final class DedupOperator extends AbstractStreamOperator<Impression>
        implements OneInputStreamOperator<Impression, Impression>, Triggerable<Integer, Long> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(DedupOperator.class);

    /** Stable operator id: savepoints map state to it. Never change it. */
    public static final String UID = "impression-dedup";
    public static final String NAME = "Deduplicate impressions";
    /**
     * The managed memory the operator uses, for its page caches' off-heap tier ({@code OffHeapPageTier}): the job declares it on
     * the operator's transformation ({@code Transformation#declareManagedMemoryUseCaseAtOperatorScope}), so that Flink gives the
     * operator a share of its slot's managed memory beside the state backend's.
     */
    public static final ManagedMemoryUseCase MANAGED_MEMORY_USE_CASE = ManagedMemoryUseCase.OPERATOR;

    /** Records too late to be deduplicated safely, as dead letters with reason {@code late}. */
    public static final OutputTag<DeadLetter> LATE = new OutputTag<>("late-impressions", DeadLetter.TYPE_INFO);
    /** Dropped duplicates, for audit; only emitted if {@link DedupSettings#emitDuplicates()}. */
    public static final OutputTag<Impression> DUPLICATES = new OutputTag<>("duplicate-impressions", Impression.TYPE_INFO);
    /**
     * Each record's outcome (unique, duplicate, late) with its input partition and event time, for the
     * reconciliation rows ({@code StatsPreAggregator}); only emitted if {@link DedupSettings#emitOutcomes()}.
     */
    public static final OutputTag<RecordOutcome> OUTCOMES = new OutputTag<>("dedup-outcomes", RecordOutcome.TYPE_INFO);

    /** Job accumulators (REST API, job result), each also a metric of the same name and count ({@code Tally}). */
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
    /** Both formats' pages of the subtask's shards, through the page cache. */
    private transient FormatStores pageStores;
    /** The expiry and safety timers of the buckets. */
    private transient BucketExpiry expiry;
    /** The operator-state entries: checked on restore, rewritten at each snapshot. */
    private transient RestoreContract restore;
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

        restore = RestoreContract.restore(context.getOperatorStateStore(), context.isRestored(), settings.restoreRules(), plan, buckets);
        shardFilters = new ShardFilters(plan);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        restore.snapshot(latenessWatermark(), pageStores.journaledShards());
    }

    /** The watermark lateness is judged against (see the class comment). */
    private long latenessWatermark() {
        return Math.max(expiry.currentWatermark(), restore.restoredWatermark());
    }

    @Override
    public void open() throws Exception {
        super.open();
        metrics = new DedupMetrics(getMetricGroup(), getRuntimeContext(), plan.fpp());
        expiry = new BucketExpiry(getInternalTimerService(DedupStateLayout.EXPIRY_TIMERS, LongSerializer.INSTANCE, this), buckets,
                settings.stateTtl(), metrics);
        shardKeys = new ShardKeys(plan.shards(), getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
        directories = new BucketDirectoryCache(directoryState, plan.shards(), this::selectShard);
        directories.restoreAll(getKeyedStateBackend(), shardKeys); // before the stores: their caches follow the formats held
        boolean copies = !getKeyedStateBackend().isSafeToReuseKVState();
        pageStores = FormatStores.open(getPartitionedState(DedupStateLayout.pages()), getPartitionedState(DedupStateLayout.fingerprintPages()),
                getPartitionedState(DedupStateLayout.pageJournal()), plan, settings.pageCacheBudget(), getContainingTask().getEnvironment()
                .getTaskManagerInfo().getConfiguration(), copies ? List.of() : tierMemory(), directories.directories(), this::selectShard,
                copies, metrics);
        growthWarnings = new FilterGrowthWarnings(LOG, buckets, metrics.filterExpansions, metrics.cappedInsertions);
        Object currentKey = getCurrentKey();
        pageStores.replayJournals(getKeyedStateBackend(), shardKeys, directories::get); // after the directories
        expiry.restored(directories.directories(), this::selectShard);
        if (currentKey != null) {
            setCurrentKey(currentKey);
        }
        updateGauges();
        long interval = settings.gaugeInterval().toMillis();
        getProcessingTimeService().scheduleWithFixedDelay(time -> updateGauges(), interval, interval);
    }

    /**
     * The managed memory of the page caches' off-heap tier ({@code PageCacheBudget}): the operator's share of its slot's managed
     * memory, which the job declares ({@link #MANAGED_MEMORY_USE_CASE}), or the settings' fixed size; released in {@link #close()}.
     */
    private List<MemorySegment> tierMemory() throws Exception {
        Environment environment = getContainingTask().getEnvironment();
        MemoryManager memory = environment.getMemoryManager();
        double fraction = getOperatorConfig().getManagedMemoryFractionOperatorUseCaseOfSlot(MANAGED_MEMORY_USE_CASE,
                environment.getJobConfiguration(), environment.getTaskManagerInfo().getConfiguration(),
                environment.getUserCodeClassLoader().asClassLoader());
        long bytes = settings.pageCacheBudget().resolveTier(memory.computeMemorySize(fraction));
        int pages = (int) Math.min(Integer.MAX_VALUE, bytes / memory.getPageSize());
        boolean cacheOff = !settings.pageCacheBudget().isShareOfTaskHeap() && settings.pageCacheBudget().fixedBytes() == 0;
        if (pages == 0 || cacheOff) {
            return List.of();
        }
        try {
            return memory.allocatePages(this, pages);
        } catch (MemoryAllocationException e) { // served without the tier rather than failed: the state is the same either way
            LOG.warn("No off-heap page tier: {} pages of managed memory were not available ({})", pages, e.getMessage());
            return List.of();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            getContainingTask().getEnvironment().getMemoryManager().releaseAll(this);
        }
    }

    @Override
    public void processElement(StreamRecord<Impression> element) throws Exception {
        Impression impression = element.getValue();
        metrics.recordsIn.inc();
        long eventTime = impression.eventTime();
        long watermark = latenessWatermark();
        boolean late = buckets.isLate(eventTime, watermark, restore.restoredLateBefore());

        int shard = FingerprintScheme.shardOf(impression.digestHigh(), plan.shards());
        BucketFilters directory = directories.get(shard);
        shardFilters.beginRecord(impression.digestHigh(), impression.digestLow(), HashMixing.adIdHash(impression.adId()), impression.keyedAdIdHash());
        pageStores.beginRecord(shard);

        // A late record is checked against live buckets only (TimeBuckets rule 5).
        if (shardFilters.bucketHolding(directory, pageStores, eventTime, late, watermark) != TimeBuckets.NO_BUCKET) {
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
                output.collect(LATE, new StreamRecord<>(LateDeadLetter.of(impression, buckets, watermark, restore.restoredLateBefore()),
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
        Insertion insertion = shardFilters.insert(directory, pageStores, bucket);
        if (shardFilters.createdFilter()) {
            expiry.created(bucket);
        }
        switch (insertion) {
            case GREW -> growthWarnings.grew(shard, bucket, directory.get(bucket), pageStores);
            case OVER_FILLED -> growthWarnings.insertedPastCap(shard, bucket, directory.get(bucket), pageStores);
            default -> { }
        }
        directories.markChanged(shard);
    }

    /** A bucket's expiry timer ({@link BucketExpiry}). */
    @Override
    public void onEventTime(InternalTimer<Integer, Long> timer) throws Exception {
        if (expiry.expiresAt(timer) && dropBucket(shardKeys.shardOf(timer.getKey()), timer.getNamespace())) {
            metrics.bucketsExpired.inc();
        }
    }

    /** A bucket's safety timer ({@link BucketExpiry}): the watermark has not expired it within the state TTL. */
    @Override
    public void onProcessingTime(InternalTimer<Integer, Long> timer) throws Exception {
        int shard = shardKeys.shardOf(timer.getKey());
        if (dropBucket(shard, timer.getNamespace())) {
            expiry.droppedBySafetyTtl(shard, timer.getNamespace());
        }
    }

    /** Removes a bucket's filter and pages from a shard (its key is current); returns whether it was there. */
    private boolean dropBucket(int shard, long bucket) throws Exception {
        BucketFilter dropped = directories.get(shard).remove(bucket);
        pageStores.removeBucket(shard, bucket, dropped);
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
     * lateness from the last watermark that came from data. Were it obeyed, every bucket would expire (copies of stored
     * impressions would pass after the resume) and every resumed record would be late.
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
        directories.flush();
        updateGauges();
    }

    /** The changed pages, or their journal, to keyed state before the snapshot is taken: a savepoint gets every page. */
    @Override
    public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
            CheckpointStreamFactory factory) throws Exception {
        metrics.pageGroupsFlushed = pageStores.snapshot(options.getCheckpointType().isSavepoint(), this::selectShard);
        return super.snapshotState(checkpointId, timestamp, options, factory);
    }

    private void selectShard(int shard) {
        setCurrentKey(shardKeys.keyOf(shard));
    }

    /** Recomputes the gauges on the task thread: the directories' figures and the page cache's bytes. */
    private void updateGauges() {
        metrics.updateGauges(directories.directories(), pageStores.heldBytes());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        LOG.info("Checkpoint {}, dedup subtask {}: {}{}", checkpointId, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                metrics.share(), pageStores.journaled() ? "; " + pageStores.lastCheckpoint() : "");
    }

    @Override
    public void finish() throws Exception {
        directories.flush(); // the pages go with the final checkpoint's snapshot: all of them in a savepoint (stop --drain)
        updateGauges();
        String tier = pageStores.tierFigures();
        LOG.info("Final share, dedup subtask {}: {}; {}{}", getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), metrics.share(),
                metrics.pageCacheFigures(), tier.isEmpty() ? "" : "; " + tier);
        super.finish();
    }
}
