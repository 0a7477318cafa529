package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;

import io.impressiondedup.operators.model.Impression;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A stream as Kafka delivers it to the dedup operator, with the disorder real traffic has: several
 * partitions whose clocks advance together but one trails by hours (holding the watermark back);
 * event-time jitter of minutes; delayed clients whose genuine impressions arrive hours late, drawn up
 * to and past the allowed lateness; copies re-sent with their original timestamp (hours or days
 * later, across midnights) and with a new one. Watermarks are computed as Flink's source does:
 * per partition the highest event time seen minus the out-of-orderness, the minimum over partitions,
 * emitted every few records. Events are {@link Impression}s and watermarks ({@code Long}).
 */
final class DisorderedStream {

    private static final long OUT_OF_ORDERNESS = 5 * 60_000L;

    private DisorderedStream() {}

    /**
     * {@code count} records starting at {@code start}, spanning {@code span} millis of event time.
     * {@code maxDelay} bounds the delayed clients' delay (draws are uniform in [1 h, maxDelay]).
     */
    static List<Object> generate(long seed, int count, long start, long span, long maxDelay) {
        SplittableRandom random = new SplittableRandom(seed);
        int partitions = 4;
        long trailing = random.nextLong(1, 6) * HOUR; // the last partition's lag
        long[] maxEventTime = new long[partitions];
        java.util.Arrays.fill(maxEventTime, Long.MIN_VALUE);
        List<Impression> seen = new ArrayList<>();
        List<Object> events = new ArrayList<>(count + count / 10);
        long step = span / count;
        long clock = start;
        long lastWatermark = Long.MIN_VALUE;
        for (int i = 0; i < count; i++) {
            clock += random.nextLong(step / 2, step * 3 / 2 + 1);
            int partition = random.nextInt(partitions);
            long now = partition == partitions - 1 ? clock - trailing : clock;
            int kind = random.nextInt(100);
            Impression next;
            if (kind < 55 || seen.isEmpty()) { // a new impression, minutes of jitter
                next = impression("r" + seed + "-" + i, "ad-" + random.nextInt(3), now - random.nextLong(OUT_OF_ORDERNESS + 1));
            } else if (kind < 65) { // a delayed client's genuine impression
                next = impression("d" + seed + "-" + i, "ad-" + random.nextInt(3), now - random.nextLong(HOUR, Math.max(HOUR + 1, maxDelay)));
            } else if (kind < 85) { // a copy re-sent with its original timestamp
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), original.adId(), original.eventTime());
            } else if (kind < 95) { // a copy re-sent with a new timestamp
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), original.adId(), now - random.nextLong(OUT_OF_ORDERNESS + 1));
            } else { // another ad of a known request, at its time (one request, several impressions)
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), "ad-x" + random.nextInt(2), original.eventTime() + random.nextLong(1000));
            }
            seen.add(next);
            events.add(next);
            maxEventTime[partition] = Math.max(maxEventTime[partition], next.eventTime());
            if (i % 25 == 24) {
                long watermark = Long.MAX_VALUE;
                for (long max : maxEventTime) {
                    watermark = Math.min(watermark, max == Long.MIN_VALUE ? Long.MIN_VALUE : max - OUT_OF_ORDERNESS - 1);
                }
                if (watermark > lastWatermark) {
                    events.add(watermark);
                    lastWatermark = watermark;
                }
            }
        }
        return events;
    }
}
