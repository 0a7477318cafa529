package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/** Impressions for operator tests, digested the way the source does it. */
final class TestImpressions {

    static final long T0 = Instant.parse("2026-11-22T00:00:00Z").toEpochMilli();
    static final long HOUR = Duration.ofHours(1).toMillis();
    static final long DAY = Duration.ofDays(1).toMillis();

    private static final RequestIdDigester DIGESTER = new RequestIdDigester();
    private static long offset;

    private TestImpressions() {}

    static synchronized Impression impression(String requestId, String adId, long eventTime) {
        DIGESTER.digest(requestId);
        String json = "{\"requestId\":\"" + requestId + "\",\"adId\":\"" + adId + "\",\"ts\":" + eventTime + "}";
        RawKafkaRecord raw = new RawKafkaRecord(
                "impressions", 0, offset++, eventTime, requestId.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), new String[] {"trace"}, new byte[][] {{1, 2}});
        return new Impression(requestId, adId, eventTime, DIGESTER.high(), DIGESTER.low(), raw);
    }
}
