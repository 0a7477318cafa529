package io.impressiondedup.job.io;

import io.impressiondedup.operators.model.ParsedRecord;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time and watermarks at the source, per Kafka partition: bounded out-of-orderness over the
 * impressions' event times, with idleness so an empty partition does not hold the watermark back.
 *
 * <p>Dead letters never move the watermark: a malformed record has no trustworthy time, and a record
 * dated 9999 would otherwise push the watermark to 9999 and make every real impression after it late.
 * They carry their Kafka timestamp as record time, which nothing downstream uses for time.
 */
public final class ImpressionWatermarks {

    private ImpressionWatermarks() {}

    public static WatermarkStrategy<ParsedRecord> strategy(Duration maxOutOfOrderness, Duration idleness) {
        long delay = maxOutOfOrderness.toMillis();
        return WatermarkStrategy.<ParsedRecord>forGenerator(context -> new ImpressionsOnly(delay))
                .withTimestampAssigner((record, kafkaTimestamp) ->
                        record.isImpression() ? record.impression().eventTime() : Math.max(0, kafkaTimestamp))
                .withIdleness(idleness);
    }

    /** Bounded out-of-orderness that only impressions advance. */
    static final class ImpressionsOnly implements WatermarkGenerator<ParsedRecord> {
        private final long delay;
        private long maxEventTime = Long.MIN_VALUE;

        ImpressionsOnly(long delay) {
            this.delay = delay;
        }

        @Override
        public void onEvent(ParsedRecord record, long timestamp, WatermarkOutput output) {
            if (record.isImpression()) {
                maxEventTime = Math.max(maxEventTime, record.impression().eventTime());
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            if (maxEventTime != Long.MIN_VALUE) {
                output.emitWatermark(new Watermark(maxEventTime - delay - 1));
            }
        }
    }
}
