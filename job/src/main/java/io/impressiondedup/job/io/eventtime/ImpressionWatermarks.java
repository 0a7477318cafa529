package io.impressiondedup.job.io.eventtime;

import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.util.clock.RelativeClock;

/**
 * Event time and watermarks at the source, per Kafka partition: bounded out-of-orderness over the
 * impressions' event times, and idleness for a partition that delivers no impression.
 *
 * <p>Dead letters never move the watermark: a malformed record has no trustworthy time, and a record
 * dated 9999 would otherwise push the watermark to 9999 and make every real record after it late.
 * They carry their Kafka timestamp as record time, which nothing downstream uses for time.
 *
 * <p>Nor do dead letters keep a partition active. Flink's {@link WatermarkStrategy#withIdleness}
 * counts every record as activity, so a partition delivering only dead letters would hold the
 * watermark back forever. The generator here does its own idleness instead (and the strategy is not
 * wrapped in {@code withIdleness}, which would count dead letters again): a partition with no
 * impression for the idleness timeout is marked idle, even while dead letters keep arriving, and
 * active again by its next impression. Time is measured on the source's input activity clock, the
 * one {@code withIdleness} uses, which stands still while the source is paused (backpressure,
 * watermark alignment), so a paused partition is not declared idle.
 */
public final class ImpressionWatermarks {

    private ImpressionWatermarks() {}

    public static WatermarkStrategy<ParsedRecord> strategy(Duration maxOutOfOrderness, Duration idleness) {
        long delay = maxOutOfOrderness.toMillis();
        return WatermarkStrategy.<ParsedRecord>forGenerator(context -> new ImpressionsOnly(delay, idleness, context.getInputActivityClock()))
                .withTimestampAssigner((record, kafkaTimestamp) ->
                        record.isImpression() ? record.impression().eventTime() : Math.max(0, kafkaTimestamp));
    }

    /**
     * Bounded out-of-orderness that only impressions advance, with idleness that only impressions
     * interrupt. The watermark is {@code maxEventTime - delay - 1}, saturating at {@link Long#MIN_VALUE}.
     */
    static final class ImpressionsOnly implements WatermarkGenerator<ParsedRecord> {
        private final long delay;
        private final long idlenessNanos;
        private final RelativeClock clock;

        private boolean anyImpression;
        private long maxEventTime = Long.MIN_VALUE;
        /** Impressions seen since the last periodic emit. */
        private boolean impressionSinceLastEmit;
        /** Clock reading at the first periodic emit that found no impression since the one before; -1 while there is none. */
        private long quietSinceNanos = -1;
        private boolean idle;

        ImpressionsOnly(long delay, Duration idleness, RelativeClock clock) {
            if (delay < 0) {
                throw new IllegalArgumentException("the out-of-orderness must not be negative, but was " + delay + " ms");
            }
            if (idleness.isNegative() || idleness.isZero()) {
                throw new IllegalArgumentException("the idleness must be positive, but was " + idleness);
            }
            this.delay = delay;
            this.idlenessNanos = saturatedNanos(idleness);
            this.clock = clock;
        }

        @Override
        public void onEvent(ParsedRecord record, long timestamp, WatermarkOutput output) {
            if (!record.isImpression()) {
                return; // a dead letter: neither time nor activity
            }
            anyImpression = true;
            maxEventTime = Math.max(maxEventTime, record.impression().eventTime());
            impressionSinceLastEmit = true;
            if (idle) {
                idle = false;
                output.markActive();
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            if (impressionSinceLastEmit) {
                impressionSinceLastEmit = false;
                quietSinceNanos = -1;
            } else if (quietSinceNanos < 0) {
                // The first emit without an impression since the last one: the quiet starts now. Like
                // Flink's own idleness, this errs towards going idle one emit interval late, never early.
                quietSinceNanos = clock.relativeTimeNanos();
            } else if (!idle && clock.relativeTimeNanos() - quietSinceNanos >= idlenessNanos) {
                idle = true;
                output.markIdle();
            }
            // An idle partition emits nothing: a watermark would make it active again.
            if (!idle && anyImpression) {
                output.emitWatermark(new Watermark(watermark(maxEventTime, delay)));
            }
        }

        boolean isIdle() {
            return idle;
        }

        /** {@code maxEventTime - delay - 1}, never wrapping below {@link Long#MIN_VALUE}. */
        static long watermark(long maxEventTime, long delay) {
            return TimeBuckets.saturatedSubtract(TimeBuckets.saturatedSubtract(maxEventTime, delay), 1);
        }

        private static long saturatedNanos(Duration d) {
            try {
                return d.toNanos();
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
    }
}
