package io.impressiondedup.testdata.generate;

import static io.impressiondedup.testdata.generate.AsciiByteBuilder.ascii;

import java.time.Instant;
import java.util.SplittableRandom;

/**
 * Draws the fields of an impression besides its identity (campaign, placement, publisher, country, device, user
 * agent, price, currency, bid id) and encodes them as a {@link Payload}, JSON or Avro; stamps a payload with an
 * event time, some of them as ISO-8601 strings.
 *
 * <p>The random draws run in the same order in either format: it is part of what a seed reproduces, so that a seed
 * gives the same records in JSON and in Avro.
 */
final class ImpressionPayloads {

    private static final byte[][] USER_AGENTS = ascii(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
        "Roku/DVP-12.5 (12.5.0.4178-46)",
        "Mozilla/5.0 (SMART-TV; Linux; Tizen 7.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/5.0 Chrome/94.0.4606.31 TV Safari/537.36");
    private static final byte[][] COUNTRIES = ascii("US", "US", "US", "DE", "GB", "FR", "JP", "BR", "IN", "CA", "AU", "ES");
    private static final byte[][] DEVICES = ascii("mobile", "mobile", "mobile", "desktop", "tablet", "ctv");
    private static final byte[][] CURRENCIES = ascii("USD", "USD", "USD", "EUR", "GBP", "JPY");
    // The fixed parts of an impression's JSON, in field order.
    private static final byte[] REQUEST_ID = ascii("{\"requestId\":\"");
    private static final byte[] AD_ID = ascii("\",\"adId\":\"");
    private static final byte[] TS = ascii("\",\"ts\":");
    private static final byte[] CAMPAIGN_ID = ascii(",\"campaignId\":\"cmp-");
    private static final byte[] PLACEMENT_ID = ascii("\",\"placementId\":\"plc-");
    private static final byte[] PUBLISHER_ID = ascii("\",\"publisherId\":\"pub-");
    private static final byte[] COUNTRY = ascii("\",\"country\":\"");
    private static final byte[] DEVICE_TYPE = ascii("\",\"deviceType\":\"");
    private static final byte[] USER_AGENT = ascii("\",\"userAgent\":\"");
    private static final byte[] PRICE = ascii("\",\"price\":");
    private static final byte[] CURRENCY = ascii(",\"currency\":\"");
    private static final byte[] BID_ID = ascii("\",\"bidId\":\"");
    private static final byte[] END = ascii("\"}");

    private final SplittableRandom random;
    /** The Avro encoding of the values, or null for JSON. */
    private final AvroImpressionEncoding avro;
    private final double isoTimestampShare;
    /** Reused to assemble JSON payloads. */
    private final AsciiByteBuilder payloadBuilder = new AsciiByteBuilder(512);

    /** @param avro the Avro encoding of the values, or null for JSON */
    ImpressionPayloads(SplittableRandom random, AvroImpressionEncoding avro, double isoTimestampShare) {
        this.random = random;
        this.avro = avro;
        this.isoTimestampShare = isoTimestampShare;
    }

    /** The Avro encoding of the values, or null for JSON. */
    AvroImpressionEncoding avro() {
        return avro;
    }

    /** Whether the values are JSON objects (a JSONL file embeds them as they are). */
    boolean json() {
        return avro == null;
    }

    /** The value of an impression of ({@code requestId}, {@code adId}), split around its timestamp so copies can re-stamp it. */
    Payload draw(String requestId, String adId) {
        int adRank = Integer.parseInt(adId, 3, adId.length(), 10);
        int placement = random.nextInt(2000);
        int publisher = random.nextInt(300);
        byte[] country = COUNTRIES[random.nextInt(COUNTRIES.length)];
        byte[] deviceType = DEVICES[random.nextInt(DEVICES.length)];
        byte[] userAgent = USER_AGENTS[random.nextInt(USER_AGENTS.length)];
        int priceUnits = random.nextInt(20);
        int priceTenThousandths = 1000 + random.nextInt(9000);
        byte[] currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
        long bidId = random.nextLong();
        if (avro != null) {
            return new Payload(avro.before(requestId, adId), avro.after(adRank % 400, placement, publisher, country, deviceType, userAgent,
                    priceUnits, priceTenThousandths, currency, bidId), true);
        }
        byte[] before = payloadBuilder.reset()
                .append(REQUEST_ID).append(requestId)
                .append(AD_ID).append(adId)
                .append(TS)
                .toByteArray();
        byte[] after = payloadBuilder.reset()
                .append(CAMPAIGN_ID).append(adRank % 400)
                .append(PLACEMENT_ID).append(placement)
                .append(PUBLISHER_ID).append(publisher)
                .append(COUNTRY).append(country)
                .append(DEVICE_TYPE).append(deviceType)
                .append(USER_AGENT).append(userAgent)
                .append(PRICE).append(priceUnits).append('.').append(priceTenThousandths)
                .append(CURRENCY).append(currency)
                .append(BID_ID).appendHex(bidId)
                .append(END)
                .toByteArray();
        return new Payload(before, after, false);
    }

    /** {@code payload} with {@code eventTime}: epoch millis, or for the ISO timestamp share an ISO-8601 string. */
    byte[] stamp(Payload payload, long eventTime) {
        boolean iso = random.nextDouble() < isoTimestampShare;
        return iso ? payload.bytes(Instant.ofEpochMilli(eventTime).toString()) : payload.bytes(eventTime);
    }
}
