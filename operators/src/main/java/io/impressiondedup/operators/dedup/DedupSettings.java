package io.impressiondedup.operators.dedup;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.operators.dedup.restore.RestoreContract;
import io.impressiondedup.operators.dedup.restore.RestoreRules;
import io.impressiondedup.operators.dedup.store.PageCacheBudget;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/** How a {@link DedupOperator} deduplicates; built and validated by {@link #builder()}. */
public final class DedupSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Gauges are recomputed this often. */
    public static final Duration DEFAULT_GAUGE_INTERVAL = Duration.ofSeconds(10);

    private final DedupPlan plan;
    private final boolean emitDuplicates;
    private final Duration stateTtl;
    private final Duration gaugeInterval;
    private final LatePolicy latePolicy;
    private final boolean resetLatenessWatermark;
    private final long fingerprintCheck;
    private final PageCacheBudget pageCacheBudget;
    private final boolean emitOutcomes;
    private final String dedupKey;
    private final boolean allowDedupKeyChange;
    private final boolean allowRetentionIncrease;

    private DedupSettings(Builder builder) {
        this.plan = builder.plan;
        this.emitDuplicates = builder.emitDuplicates;
        this.stateTtl = builder.stateTtl;
        this.gaugeInterval = builder.gaugeInterval;
        this.latePolicy = builder.latePolicy;
        this.resetLatenessWatermark = builder.resetLatenessWatermark;
        this.fingerprintCheck = builder.fingerprintCheck;
        this.pageCacheBudget = builder.pageCacheBudget;
        this.emitOutcomes = builder.emitOutcomes;
        this.dedupKey = builder.dedupKey;
        this.allowDedupKeyChange = builder.allowDedupKeyChange;
        this.allowRetentionIncrease = builder.allowRetentionIncrease;
    }

    public static Builder builder() {
        return new Builder();
    }

    public DedupPlan plan() {
        return plan;
    }

    public boolean emitDuplicates() {
        return emitDuplicates;
    }

    /**
     * Processing-time safety TTL: a bucket is dropped this long after its creation if event time has
     * not expired it by then; {@link Duration#ZERO} for none.
     */
    public Duration stateTtl() {
        return stateTtl;
    }

    /** Whether every record's outcome goes to {@link DedupOperator#OUTCOMES}, for the reconciliation rows (a stats topic). */
    public boolean emitOutcomes() {
        return emitOutcomes;
    }

    public Duration gaugeInterval() {
        return gaugeInterval;
    }

    /** What happens to a late record that is not a copy of a live one. */
    public LatePolicy latePolicy() {
        return latePolicy;
    }

    /** Whether a restore ignores the lateness watermark kept in the savepoint. */
    public boolean resetLatenessWatermark() {
        return resetLatenessWatermark;
    }

    /**
     * The check value of the secret the source keys request-id digests with ({@link
     * FingerprintSecret#checkValue()}), {@link FingerprintSecret#NO_SECRET} without one. The operator
     * never sees the secret: it only keeps this in state and refuses a restore that disagrees.
     */
    public long fingerprintCheck() {
        return fingerprintCheck;
    }

    /**
     * The identity rule's description: the key fields as JSON Pointers joined by {@code ;} ({@link
     * #DEFAULT_DEDUP_KEY} by default). The operator keeps it in state and refuses a restore whose state was
     * written under another key ({@code DedupKeyCheck}), unless {@link #allowDedupKeyChange()}.
     */
    public String dedupKey() {
        return dedupKey;
    }

    /** Whether a restore may change {@link #dedupKey()} (copies of impressions stored before then pass once). */
    public boolean allowDedupKeyChange() {
        return allowDedupKeyChange;
    }

    /**
     * Whether a restore may lengthen the retention the state was written under ({@code TimeOptionsCheck}: copies further
     * apart than the old retention, of impressions in buckets it already dropped, pass once).
     */
    public boolean allowRetentionIncrease() {
        return allowRetentionIncrease;
    }

    /** The default identity's description: (request id, ad id) at their default fields. */
    public static final String DEFAULT_DEDUP_KEY = "/requestId;/adId";

    /**
     * Heap bytes per subtask for the write-back page cache ({@link PageCache}): none by default here (the job's
     * {@code --page-cache-bytes} defaults to {@link PageCacheBudget#shareOfTaskHeap()} on RocksDB).
     */
    public PageCacheBudget pageCacheBudget() {
        return pageCacheBudget;
    }

    /** Heap bytes one cached page group of {@code plan} takes, with the cache's own share (the arithmetic is there). */
    public static long pageCacheBytesPerGroup(DedupPlan plan) {
        return PageCacheBudget.bytesPerGroup(plan);
    }

    /** What a restore is checked against and the overrides of it ({@link RestoreContract}). */
    public RestoreRules restoreRules() {
        return new RestoreRules(fingerprintCheck, dedupKey, allowDedupKeyChange, allowRetentionIncrease, resetLatenessWatermark);
    }

    /** The shortest safety TTL that cannot drop a bucket before event time would: retention + allowed lateness + one bucket. */
    public static Duration minimumStateTtl(DedupPlan plan) {
        return plan.timeBuckets().retention().plus(plan.timeBuckets().allowedLateness()).plus(plan.timeBuckets().bucketSize());
    }

    /**
     * The default safety TTL: retention + allowed lateness + one bucket (the longest a bucket's state
     * is needed in event time, {@link #minimumStateTtl}) + 7 days. It only matters if event time stops
     * (a stuck watermark would otherwise keep buckets forever); it must exceed any outage the job should
     * survive with its state intact, because it counts processing time from the bucket's creation.
     */
    public static Duration defaultStateTtl(DedupPlan plan) {
        return minimumStateTtl(plan).plus(Duration.ofDays(7));
    }

    @Override
    public String toString() {
        return "DedupSettings{" + plan + ", emitDuplicates=" + emitDuplicates + ", stateTtl=" + stateTtl + ", latePolicy="
                + latePolicy.optionValue() + ", resetLatenessWatermark=" + resetLatenessWatermark + ", fingerprintCheck="
                + FingerprintSecret.describeCheckValue(fingerprintCheck) + ", pageCacheBudget=" + pageCacheBudget + ", emitOutcomes=" + emitOutcomes + ", dedupKey=" + dedupKey + ", allowDedupKeyChange=" + allowDedupKeyChange + '}';
    }

    /** Builder of {@link DedupSettings}. */
    public static final class Builder {
        private DedupPlan plan;
        private boolean emitDuplicates;
        private Duration stateTtl;
        private Duration gaugeInterval = DEFAULT_GAUGE_INTERVAL;
        private LatePolicy latePolicy = LatePolicy.DEAD_LETTER;
        private boolean resetLatenessWatermark;
        private long fingerprintCheck = FingerprintSecret.NO_SECRET;
        private String dedupKey = DEFAULT_DEDUP_KEY;
        private boolean allowDedupKeyChange;
        private boolean allowRetentionIncrease;
        private PageCacheBudget pageCacheBudget = PageCacheBudget.ofBytes(0);
        private boolean emitOutcomes;

        public Builder plan(DedupPlan plan) {
            this.plan = plan;
            return this;
        }

        /** Emit dropped duplicates to {@link DedupOperator#DUPLICATES} for audit (off by default). */
        public Builder emitDuplicates(boolean emitDuplicates) {
            this.emitDuplicates = emitDuplicates;
            return this;
        }

        /** Processing-time safety TTL; {@link Duration#ZERO} disables it. Default: {@link #defaultStateTtl}. */
        public Builder stateTtl(Duration stateTtl) {
            this.stateTtl = stateTtl;
            return this;
        }

        public Builder gaugeInterval(Duration gaugeInterval) {
            this.gaugeInterval = gaugeInterval;
            return this;
        }

        /** What happens to a late record that is not a copy of a live one (default: dead-letter). */
        public Builder latePolicy(LatePolicy latePolicy) {
            this.latePolicy = latePolicy;
            return this;
        }

        /**
         * Ignore the lateness watermark kept in the restored state: for recovering from a watermark that bad
         * data pushed too far. Records whose copies' buckets were already dropped then pass as new.
         */
        public Builder resetLatenessWatermark(boolean resetLatenessWatermark) {
            this.resetLatenessWatermark = resetLatenessWatermark;
            return this;
        }

        /**
         * The check value of the source's fingerprint secret ({@link FingerprintSecret#checkValueOf}):
         * default none. It must match the one the restored state was written with.
         */
        public Builder fingerprintCheck(long fingerprintCheck) {
            this.fingerprintCheck = fingerprintCheck;
            return this;
        }

        /** Heap bytes per subtask for the page cache; 0 (the default) for none. */
        public Builder pageCacheBytes(long pageCacheBytes) {
            return pageCacheBudget(PageCacheBudget.ofBytes(pageCacheBytes));
        }

        /** See {@link DedupSettings#pageCacheBudget()}. */
        public Builder pageCacheBudget(PageCacheBudget pageCacheBudget) {
            this.pageCacheBudget = Objects.requireNonNull(pageCacheBudget, "pageCacheBudget");
            return this;
        }

        /** Emit each record's outcome to {@link DedupOperator#OUTCOMES} (off by default: it costs an object per record). */
        /** See {@link DedupSettings#dedupKey()}. */
        public Builder dedupKey(String dedupKey) {
            this.dedupKey = dedupKey;
            return this;
        }

        /** See {@link DedupSettings#allowRetentionIncrease()}. */
        public Builder allowRetentionIncrease(boolean allowRetentionIncrease) {
            this.allowRetentionIncrease = allowRetentionIncrease;
            return this;
        }

        /** See {@link DedupSettings#allowDedupKeyChange()}. */
        public Builder allowDedupKeyChange(boolean allowDedupKeyChange) {
            this.allowDedupKeyChange = allowDedupKeyChange;
            return this;
        }

        public Builder emitOutcomes(boolean emitOutcomes) {
            this.emitOutcomes = emitOutcomes;
            return this;
        }

        public DedupSettings build() {
            Objects.requireNonNull(plan, "plan");
            if (stateTtl == null) {
                stateTtl = defaultStateTtl(plan);
            }
            Objects.requireNonNull(latePolicy, "latePolicy");
            Duration needed = minimumStateTtl(plan);
            checkArgument(
                    stateTtl.isZero() || stateTtl.compareTo(needed) > 0,
                    "state TTL %s would drop buckets before event time does; it must exceed retention + allowed lateness + bucket size (%s), or be 0 to disable",
                    stateTtl,
                    needed);
            checkArgument(dedupKey != null && !dedupKey.isEmpty(), "the dedup key's description must not be empty");
            checkArgument(!gaugeInterval.isNegative() && !gaugeInterval.isZero(), "gauge interval must be positive, but was %s", gaugeInterval);
            return new DedupSettings(this);
        }
    }
}
