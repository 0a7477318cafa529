package io.impressiondedup.job.io.eventtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkOutputMultiplexer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.ManualClock;
import org.apache.flink.util.clock.RelativeClock;
import org.junit.jupiter.api.Test;

/**
 * The per-partition watermark generator, driven by hand: a fake {@link WatermarkOutput} records what
 * it emits, a {@link ManualClock} stands in for the source's input activity clock, and the periodic
 * emit is called every 200 ms of that clock, as Flink's {@code pipeline.auto-watermark-interval} does.
 */
class ImpressionWatermarksTest {

    static final Duration DELAY = Duration.ofMinutes(5);
    static final Duration IDLENESS = Duration.ofMinutes(1);
    static final Duration EMIT_INTERVAL = Duration.ofMillis(200);
    static final long T0 = 1_763_812_800_000L; // 2025-11-22T12:00:00Z

    final ManualClock clock = new ManualClock();
    final RecordingOutput output = new RecordingOutput();

    /** What a split's watermark output was told, in order: "wm 123", "idle", "active". */
    static final class RecordingOutput implements WatermarkOutput {
        final List<String> events = new ArrayList<>();
        boolean idle;

        @Override
        public void emitWatermark(Watermark watermark) {
            events.add("wm " + watermark.getTimestamp());
            idle = false; // as Flink's split outputs do: a watermark makes the output active
        }

        @Override
        public void markIdle() {
            events.add("idle");
            idle = true;
        }

        @Override
        public void markActive() {
            events.add("active");
            idle = false;
        }

        List<String> drain() {
            List<String> drained = new ArrayList<>(events);
            events.clear();
            return drained;
        }
    }

    static RawKafkaRecord raw(long offset) {
        return new RawKafkaRecord("in", 0, offset, T0, null, "{}".getBytes(StandardCharsets.UTF_8), null, null);
    }

    static ParsedRecord impression(long eventTime) {
        return ParsedRecord.of(new Impression("r", "a", eventTime, 1, 2, raw(0)));
    }

    static ParsedRecord deadLetter() {
        return ParsedRecord.of(new DeadLetter(raw(1), DeadLetterReason.MALFORMED, "not JSON"));
    }

    WatermarkGenerator<ParsedRecord> generator() {
        return ImpressionWatermarks.strategy(DELAY, IDLENESS).createWatermarkGenerator(context(clock));
    }

    static WatermarkGeneratorSupplier.Context context(RelativeClock activityClock) {
        return new WatermarkGeneratorSupplier.Context() {
            @Override
            public MetricGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public RelativeClock getInputActivityClock() {
                return activityClock;
            }
        };
    }

    /** {@code duration} of clock time: a dead letter (if asked) and a periodic emit every 200 ms. */
    void run(WatermarkGenerator<ParsedRecord> generator, WatermarkOutput out, Duration duration, boolean deadLetters) {
        for (long step = 0; step < duration.toMillis() / EMIT_INTERVAL.toMillis(); step++) {
            if (deadLetters) {
                generator.onEvent(deadLetter(), T0, out);
            }
            clock.advanceTime(EMIT_INTERVAL);
            generator.onPeriodicEmit(out);
        }
    }

    @Test
    void aPartitionWithOnlyDeadLettersGoesIdleAfterTheIdlenessAndNeverEmitsAWatermark() {
        WatermarkGenerator<ParsedRecord> generator = generator();
        run(generator, output, IDLENESS.minus(Duration.ofSeconds(1)), true);
        assertThat(output.drain()).as("dead letters for less than the idleness").isEmpty();

        run(generator, output, Duration.ofSeconds(2), true);
        assertThat(output.drain()).as("dead letters for the idleness").containsExactly("idle");

        run(generator, output, Duration.ofMinutes(10), true);
        assertThat(output.drain()).as("more dead letters: still idle, told once").isEmpty();
        assertThat(output.idle).isTrue();
    }

    @Test
    void anImpressionMakesAnIdlePartitionActiveAtOnceAndItsWatermarkFollows() {
        WatermarkGenerator<ParsedRecord> generator = generator();
        generator.onEvent(impression(T0), T0, output);
        run(generator, output, Duration.ofSeconds(1), true);
        long watermark = T0 - DELAY.toMillis() - 1;
        assertThat(output.drain()).containsOnly("wm " + watermark);

        run(generator, output, IDLENESS.plus(Duration.ofSeconds(1)), true);
        List<String> events = output.drain();
        assertThat(events).last().isEqualTo("idle");
        assertThat(events).filteredOn("idle"::equals).hasSize(1);
        assertThat(events).filteredOn(e -> !e.equals("idle")).containsOnly("wm " + watermark);

        generator.onEvent(impression(T0 + 10_000), T0 + 10_000, output);
        assertThat(output.drain()).as("on the impression itself, before any periodic emit").containsExactly("active");
        clock.advanceTime(EMIT_INTERVAL);
        generator.onPeriodicEmit(output);
        assertThat(output.drain()).containsExactly("wm " + (watermark + 10_000));

        // And idle again once only dead letters follow.
        run(generator, output, IDLENESS.plus(Duration.ofSeconds(1)), true);
        assertThat(output.drain()).last().isEqualTo("idle");
    }

    @Test
    void impressionsKeepAPartitionActiveHoweverLongAndOnlyTheyMoveTheWatermark() {
        WatermarkGenerator<ParsedRecord> generator = generator();
        for (int second = 0; second < 600; second++) {
            generator.onEvent(impression(T0 + second * 1000L), T0, output);
            generator.onEvent(deadLetter(), Long.MAX_VALUE, output); // a dead letter's (Kafka) time never counts
            run(generator, output, Duration.ofSeconds(1), false);
        }
        assertThat(output.events).doesNotContain("idle", "active");
        assertThat(output.events).last().isEqualTo("wm " + (T0 + 599_000 - DELAY.toMillis() - 1));
    }

    @Test
    void noIdlenessWhileTheActivityClockStandsStill() {
        // The source's input activity clock stops while it is paused (backpressure, watermark alignment).
        WatermarkGenerator<ParsedRecord> generator = generator();
        for (int i = 0; i < 10_000; i++) {
            generator.onEvent(deadLetter(), T0, output);
            generator.onPeriodicEmit(output);
        }
        assertThat(output.events).isEmpty();
    }

    @Test
    void theWatermarkSaturatesInsteadOfWrapping() {
        assertThat(ImpressionWatermarks.ImpressionsOnly.watermark(Long.MIN_VALUE + 3, DELAY.toMillis())).isEqualTo(Long.MIN_VALUE);
        assertThat(ImpressionWatermarks.ImpressionsOnly.watermark(Long.MIN_VALUE, 0)).isEqualTo(Long.MIN_VALUE);
        assertThat(ImpressionWatermarks.ImpressionsOnly.watermark(Long.MIN_VALUE + 3, 0)).isEqualTo(Long.MIN_VALUE + 2);
        assertThat(ImpressionWatermarks.ImpressionsOnly.watermark(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(-1);
        assertThat(ImpressionWatermarks.ImpressionsOnly.watermark(Long.MIN_VALUE + 1, Long.MAX_VALUE)).isEqualTo(Long.MIN_VALUE);

        for (long eventTime : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE + 3, Long.MIN_VALUE + DELAY.toMillis()}) {
            RecordingOutput out = new RecordingOutput();
            WatermarkGenerator<ParsedRecord> generator = generator();
            generator.onEvent(impression(eventTime), eventTime, out);
            generator.onPeriodicEmit(out);
            assertThat(out.events).as("event time %s", eventTime).containsExactly("wm " + Long.MIN_VALUE);
        }
        WatermarkGenerator<ParsedRecord> generator = generator();
        generator.onEvent(impression(Long.MIN_VALUE + DELAY.toMillis() + 2), 0, output);
        generator.onPeriodicEmit(output);
        assertThat(output.events).containsExactly("wm " + (Long.MIN_VALUE + 1));
    }

    @Test
    void theStrategyDoesItsOwnIdlenessAndDatesDeadLettersByTheirKafkaTimestamp() {
        WatermarkStrategy<ParsedRecord> strategy = ImpressionWatermarks.strategy(DELAY, IDLENESS);
        // Not wrapped in Flink's withIdleness, which would count dead letters as activity.
        assertThat(strategy.createWatermarkGenerator(context(clock))).isInstanceOf(ImpressionWatermarks.ImpressionsOnly.class);
        var timestamps = strategy.createTimestampAssigner(null);
        assertThat(timestamps.extractTimestamp(impression(T0), 5)).isEqualTo(T0);
        assertThat(timestamps.extractTimestamp(deadLetter(), 5)).isEqualTo(5);
        assertThat(timestamps.extractTimestamp(deadLetter(), -1)).isZero();
    }

    @Test
    void withFlinksSplitMultiplexerAPartitionOfDeadLettersStopsHoldingBackTheOthers() {
        List<Long> combined = new ArrayList<>();
        WatermarkOutputMultiplexer multiplexer = new WatermarkOutputMultiplexer(new WatermarkOutput() {
            @Override
            public void emitWatermark(Watermark watermark) {
                combined.add(watermark.getTimestamp());
            }

            @Override
            public void markIdle() {}

            @Override
            public void markActive() {}
        });
        multiplexer.registerNewOutput("impressions");
        multiplexer.registerNewOutput("dead-letters");
        WatermarkGenerator<ParsedRecord> impressions = generator();
        WatermarkGenerator<ParsedRecord> deadLetters = generator();
        long watermark = T0 - DELAY.toMillis() - 1;
        for (int step = 0; step < (IDLENESS.toMillis() + 1000) / EMIT_INTERVAL.toMillis(); step++) {
            impressions.onEvent(impression(T0), T0, multiplexer.getImmediateOutput("impressions"));
            deadLetters.onEvent(deadLetter(), T0, multiplexer.getImmediateOutput("dead-letters"));
            clock.advanceTime(EMIT_INTERVAL);
            impressions.onPeriodicEmit(multiplexer.getDeferredOutput("impressions"));
            deadLetters.onPeriodicEmit(multiplexer.getDeferredOutput("dead-letters"));
            multiplexer.onPeriodicEmit();
            if (clock.relativeTimeMillis() < IDLENESS.toMillis()) {
                assertThat(combined).as("held back by the partition of dead letters at %s ms", clock.relativeTimeMillis()).isEmpty();
            }
        }
        assertThat(combined).containsExactly(watermark);

        // The dead-letter partition's first impression makes it count again, at its own (lower) watermark.
        deadLetters.onEvent(impression(T0 - 60_000), T0, multiplexer.getImmediateOutput("dead-letters"));
        impressions.onEvent(impression(T0 + 120_000), T0, multiplexer.getImmediateOutput("impressions"));
        clock.advanceTime(EMIT_INTERVAL);
        impressions.onPeriodicEmit(multiplexer.getDeferredOutput("impressions"));
        deadLetters.onPeriodicEmit(multiplexer.getDeferredOutput("dead-letters"));
        multiplexer.onPeriodicEmit();
        assertThat(combined).as("the combined watermark never goes back, and waits for the reactivated partition")
                .containsExactly(watermark);
        deadLetters.onEvent(impression(T0 + 60_000), T0, multiplexer.getImmediateOutput("dead-letters"));
        clock.advanceTime(EMIT_INTERVAL);
        impressions.onPeriodicEmit(multiplexer.getDeferredOutput("impressions"));
        deadLetters.onPeriodicEmit(multiplexer.getDeferredOutput("dead-letters"));
        multiplexer.onPeriodicEmit();
        assertThat(combined).containsExactly(watermark, watermark + 60_000);
    }
}
