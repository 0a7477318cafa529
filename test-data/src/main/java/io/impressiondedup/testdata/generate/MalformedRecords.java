package io.impressiondedup.testdata.generate;

import static io.impressiondedup.testdata.GeneratedRecord.keyOf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;

/**
 * Malformed records, each the corruption of an impression's value: invalid JSON, missing or mistyped fields, absurd
 * timestamps, empty and null values, binary garbage, oversized values. In Avro each variant has its counterpart
 * ({@link #nextAvro}), drawn with the same random draws, so that a seed gives the same stream in either format.
 */
final class MalformedRecords {

    /**
     * The event times of the "absurd timestamp" malformed variant, as JSON text: one list for both formats, so that a
     * seed draws the same variant in JSON and in Avro (where "-5" is the long -5 and the rest are strings).
     */
    private static final String[] ABSURD_TIMESTAMPS = {"-5", "12.5", "1e30", "99999999999999999999", "null", "true"};

    private final SplittableRandom random;
    /** The Avro encoding of the values, or null for JSON. */
    private final AvroImpressionEncoding avro;
    /** Size of an oversized value's filler; above the job's maximum record size. */
    private final int oversizedBytes;
    private String oversizedPadding;

    /** @param avro the Avro encoding of the values, or null for JSON */
    MalformedRecords(SplittableRandom random, AvroImpressionEncoding avro, int oversizedBytes) {
        this.random = random;
        this.avro = avro;
        this.oversizedBytes = oversizedBytes;
    }

    /**
     * A malformed record made from the impression of ({@code requestId}, {@code adId}) at {@code clock} and its {@code
     * payload}: cut short, without request id, without ad id, a timestamp that is no instant, an absurd timestamp, empty,
     * garbage, oversized, a request id that is a number, an array, null.
     */
    GeneratedRecord next(long seq, long clock, String requestId, String adId, Payload payload) {
        if (avro != null) {
            return nextAvro(seq, clock, requestId, adId, payload);
        }
        String json;
        String reason = "malformed";
        boolean jsonObject = true;
        switch (random.nextInt(11)) {
            case 0: // invalid JSON: cut short
                json = payload.before() + clock;
                jsonObject = false;
                break;
            case 1:
                json = payload.json(clock).replace("\"requestId\":\"" + requestId + "\",", "");
                break;
            case 2:
                json = payload.json(clock).replace("\"adId\":\"" + adId + "\",", "");
                break;
            case 3:
                json = payload.before() + "\"yesterday\"" + payload.after();
                break;
            case 4:
                json = payload.before() + ABSURD_TIMESTAMPS[random.nextInt(ABSURD_TIMESTAMPS.length)] + payload.after();
                break;
            case 5:
                return empty(seq, reason, requestId);
            case 6:
                return malformed(seq, reason, "", "", null, garbage(), false);
            case 7:
                json = payload.json(clock).replace("\"currency\"", "\"padding\":\"" + oversizedPadding() + "\",\"currency\"");
                reason = "oversized";
                break;
            case 8:
                json = payload.json(clock).replace("\"requestId\":\"" + requestId + "\"", "\"requestId\":" + (seq + 1));
                break;
            case 9:
                json = "[\"" + requestId + "\",\"" + adId + "\"," + clock + "]";
                jsonObject = false;
                break;
            default:
                return malformed(seq, reason, "", "", keyOf(requestId), null, false);
        }
        return malformed(seq, reason, requestId, adId, keyOf(requestId), json.getBytes(StandardCharsets.UTF_8), jsonObject);
    }

    /** An empty value under the request's key. */
    private GeneratedRecord empty(long seq, String reason, String requestId) {
        return malformed(seq, reason, "", "", keyOf(requestId), new byte[0], false);
    }

    /** 50 to 299 random bytes. */
    private byte[] garbage() {
        byte[] garbage = new byte[50 + random.nextInt(250)];
        random.nextBytes(garbage);
        return garbage;
    }

    /**
     * The Avro counterparts of {@link #next}'s JSON variants, variant for variant with the same random draws, so
     * that a seed gives the same stream in either format: truncated, an empty request id, a null ad id (missing), a
     * timestamp string that is no instant, an absurd timestamp, empty, garbage (its first byte makes it a negative
     * string length, or a wrong magic byte with the prefix: never a record by chance), oversized, trailing bytes, a
     * union branch out of range, null.
     */
    private GeneratedRecord nextAvro(long seq, long clock, String requestId, String adId, Payload payload) {
        byte[] value;
        String reason = "malformed";
        switch (random.nextInt(11)) {
            case 0:
                byte[] whole = payload.bytes(clock);
                value = Arrays.copyOf(whole, payload.before.length + 1);
                break;
            case 1:
                value = AvroImpressionEncoding.concat(avro.before("", adId), AvroImpressionEncoding.eventTime(clock), payload.after);
                break;
            case 2:
                value = AvroImpressionEncoding.concat(avro.before(requestId, null), AvroImpressionEncoding.eventTime(clock), payload.after);
                break;
            case 3:
                value = payload.bytes("yesterday");
                break;
            case 4:
                String chosen = ABSURD_TIMESTAMPS[random.nextInt(ABSURD_TIMESTAMPS.length)];
                value = chosen.equals("-5") ? payload.bytes(-5L) : payload.bytes(chosen);
                break;
            case 5:
                return empty(seq, reason, requestId);
            case 6:
                byte[] garbage = garbage();
                garbage[0] = 1;
                return malformed(seq, reason, "", "", null, garbage, false);
            case 7:
                byte[] full = payload.bytes(clock);
                // A second block of the attributes map, of one entry, in place of the map's end: valid Avro, only too large.
                value = AvroImpressionEncoding.concat(Arrays.copyOf(full, full.length - 1),
                        new AvroImpressionEncoding.Bytes().varint(1).string("padding").string(oversizedPadding()).varint(0).toByteArray());
                reason = "oversized";
                break;
            case 8:
                value = AvroImpressionEncoding.concat(payload.bytes(clock), new byte[] {0});
                break;
            case 9:
                value = AvroImpressionEncoding.concat(payload.before, new byte[] {(byte) (2 * AvroImpressionEncoding.TS_NO_SUCH_BRANCH)},
                        payload.after);
                break;
            default:
                return malformed(seq, reason, "", "", keyOf(requestId), null, false);
        }
        return malformed(seq, reason, requestId, adId, keyOf(requestId), value, false);
    }

    /** The filler that makes a value oversized: the same for every such record, so built once. */
    private String oversizedPadding() {
        if (oversizedPadding == null) {
            StringBuilder padding = new StringBuilder(oversizedBytes + 16);
            while (padding.length() < oversizedBytes) {
                padding.append("0123456789abcdef");
            }
            oversizedPadding = padding.toString();
        }
        return oversizedPadding;
    }

    /** A malformed record: no group, no valid event time. */
    private static GeneratedRecord malformed(
            long seq, String reason, String requestId, String adId, byte[] key, byte[] value, boolean jsonObject) {
        return new GeneratedRecord(seq, RecordClass.MALFORMED, reason, -1, requestId, adId, Long.MIN_VALUE, key, value, jsonObject);
    }
}
