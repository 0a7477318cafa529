package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * {@code events} (impressions and watermarks) with every impression's digest and keyed ad-id hash computed
     * under {@code secret}, as a source run with {@code --fingerprint-secret-file} computes them; all else unchanged.
     */
    static List<Object> keyedBy(FingerprintSecret secret, List<Object> events) {
        RequestIdDigester digester = new RequestIdDigester(secret);
        List<Object> keyed = new ArrayList<>(events.size());
        for (Object event : events) {
            if (event instanceof Impression) {
                Impression i = (Impression) event;
                digester.digest(i.requestId());
                keyed.add(new Impression(i.requestId(), i.adId(), i.eventTime(), digester.high(), digester.low(),
                        secret.keyedAdIdHash(i.adId()), i.raw()));
            } else {
                keyed.add(event);
            }
        }
        return keyed;
    }
}
