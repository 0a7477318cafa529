package io.impressiondedup.operators.dedup;

import static org.apache.flink.util.Preconditions.checkArgument;

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

    private DedupSettings(Builder builder) {
        this.plan = builder.plan;
        this.emitDuplicates = builder.emitDuplicates;
        this.stateTtl = builder.stateTtl;
        this.gaugeInterval = builder.gaugeInterval;
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

    public Duration gaugeInterval() {
        return gaugeInterval;
    }

    /**
     * The default safety TTL: retention + one bucket (the longest a bucket's state is needed in event
     * time) + 7 days. It only matters if event time stops (a stuck watermark would otherwise keep
     * buckets forever); it must exceed any outage the job should survive with its state intact,
     * because it counts processing time from the bucket's creation.
     */
    public static Duration defaultStateTtl(DedupPlan plan) {
        return plan.timeBuckets().retention().plus(plan.timeBuckets().bucketSize()).plus(Duration.ofDays(7));
    }

    @Override
    public String toString() {
        return "DedupSettings{" + plan + ", emitDuplicates=" + emitDuplicates + ", stateTtl=" + stateTtl + '}';
    }

    /** Builder of {@link DedupSettings}. */
    public static final class Builder {
        private DedupPlan plan;
        private boolean emitDuplicates;
        private Duration stateTtl;
        private Duration gaugeInterval = DEFAULT_GAUGE_INTERVAL;

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

        public DedupSettings build() {
            Objects.requireNonNull(plan, "plan");
            if (stateTtl == null) {
                stateTtl = defaultStateTtl(plan);
            }
            Duration needed = plan.timeBuckets().retention().plus(plan.timeBuckets().bucketSize());
            checkArgument(
                    stateTtl.isZero() || stateTtl.compareTo(needed) > 0,
                    "state TTL %s would drop buckets before their retention ends; it must exceed retention + bucket size (%s), or be 0 to disable",
                    stateTtl,
                    needed);
            checkArgument(!gaugeInterval.isNegative() && !gaugeInterval.isZero(), "gauge interval must be positive, but was %s", gaugeInterval);
            return new DedupSettings(this);
        }
    }
}
