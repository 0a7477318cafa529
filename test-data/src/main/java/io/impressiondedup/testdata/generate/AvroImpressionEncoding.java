package io.impressiondedup.testdata.generate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The binary Avro encoding of the generator's impressions, by {@code impression.avsc} (a resource of this module):
 * written by hand, field by field in the schema's order, so that a record is built from the same drawn values as
 * its JSON form and split the same way around its event time (copies re-stamp it).
 * {@code ImpressionGeneratorAvroTest} reads every record back with Avro's own reader against the schema.
 *
 * <p>With a schema id, each value begins with the schema registry's 5-byte wire prefix (magic byte 0, the id as a
 * big-endian int).
 */
final class AvroImpressionEncoding {

    /** The schema's resource name. */
    static final String SCHEMA_RESOURCE = "/impression.avsc";

    /** Union branches of {@code adId}: ["null", "string", "long"]; of {@code ts}: [timestamp-millis long, "string"]. */
    static final int AD_ID_NULL = 0;
    static final int AD_ID_STRING = 1;
    static final int TS_MILLIS = 0;
    static final int TS_STRING = 1;
    /** A branch {@code ts} does not have: a malformed record's. */
    static final int TS_NO_SUCH_BRANCH = 2;

    private final byte[] prefix;

    /** @param schemaId the registry id to prefix each value with, or null for no prefix */
    AvroImpressionEncoding(Integer schemaId) {
        this.prefix = schemaId == null ? new byte[0]
                : new byte[] {0, (byte) (schemaId >>> 24), (byte) (schemaId >>> 16), (byte) (schemaId >>> 8), (byte) (int) schemaId};
    }

    /** The schema's text. */
    static String schemaText() {
        try (InputStream in = AvroImpressionEncoding.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The prefix, the request id and the ad id (a string, or null for none): what comes before the event time. */
    byte[] before(String requestId, String adId) {
        Bytes out = new Bytes();
        out.raw(prefix);
        out.string(requestId);
        if (adId == null) {
            out.varint(AD_ID_NULL);
        } else {
            out.varint(AD_ID_STRING).string(adId);
        }
        return out.toByteArray();
    }

    /**
     * Everything after the event time. The passthrough attributes are derived from the drawn values, not drawn
     * themselves: the same seed gives the same stream of identities and times in JSON and in Avro. The map is one
     * block, so that an oversized record can add a second one in place of its end.
     */
    byte[] after(int campaign, int placement, int publisher, byte[] country, byte[] deviceType, byte[] userAgent, int priceUnits,
            int priceTenThousandths, byte[] currency, long bidId) {
        String bid = Long.toHexString(bidId);
        Bytes out = new Bytes();
        out.string("cmp-" + campaign).string("plc-" + placement).string("pub-" + publisher);
        out.string(country).string(deviceType).string(userAgent);
        out.doubleValue(priceUnits + priceTenThousandths / 10_000.0);
        out.string(currency).string(bid);
        out.varint(4);
        out.string("pageUrl").string("https://www.example-news.com/pub-" + publisher + "/section-" + placement % 37 + "/article-" + bid
                + ".html");
        out.string("sdkVersion").string("adsdk-" + (campaign % 7) + "." + (placement % 13) + "." + (publisher % 5));
        out.string("consent").string(placement % 10 == 0 ? "0" : "1");
        out.string("auctionType").string(priceUnits % 2 == 0 ? "first-price" : "second-price");
        out.varint(0);
        return out.toByteArray();
    }

    /** The event time as epoch milliseconds (the union's long branch). */
    static byte[] eventTime(long millis) {
        return new Bytes().varint(TS_MILLIS).varint(millis).toByteArray();
    }

    /** The event time as a string (the union's string branch). */
    static byte[] eventTime(String text) {
        return new Bytes().varint(TS_STRING).string(text).toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] joined = new byte[length];
        int pos = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, joined, pos, part.length);
            pos += part.length;
        }
        return joined;
    }

    /** Avro's binary primitives. */
    static final class Bytes {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

        Bytes varint(long value) {
            long zigzag = (value << 1) ^ (value >> 63);
            while ((zigzag & ~0x7FL) != 0) {
                out.write((int) ((zigzag & 0x7F) | 0x80));
                zigzag >>>= 7;
            }
            out.write((int) zigzag);
            return this;
        }

        Bytes string(String text) {
            return string(text.getBytes(StandardCharsets.UTF_8));
        }

        Bytes string(byte[] utf8) {
            varint(utf8.length);
            out.write(utf8, 0, utf8.length);
            return this;
        }

        Bytes doubleValue(double value) {
            long bits = Double.doubleToLongBits(value);
            for (int i = 0; i < 8; i++) {
                out.write((int) (bits >>> (8 * i)));
            }
            return this;
        }

        Bytes raw(byte[] bytes) {
            out.write(bytes, 0, bytes.length);
            return this;
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }
    }

    @Override
    public String toString() {
        return "AvroImpressionEncoding{prefix=" + Arrays.toString(prefix) + '}';
    }
}
