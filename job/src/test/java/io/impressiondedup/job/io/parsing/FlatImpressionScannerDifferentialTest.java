package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fast path ({@link FlatImpressionScanner}) must change nothing but the cost: on every input, the parser
 * with it and the Jackson-only parser give the same impression (ids, event time, digest) or the same dead
 * letter (reason and message). The inputs are the generator's records, cases like those of {@link JsonImpressionParserTest},
 * values of every shape in each identity field, and a seeded fuzzer's mutations of all of them.
 */
class FlatImpressionScannerDifferentialTest {

    static final long NOW = Instant.parse("2026-11-22T12:00:00Z").toEpochMilli();
    static final String GOOD = "{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":1763812800000,\"n\":12.5,\"b\":true,\"z\":null}";

    final JsonImpressionParser fast = new JsonImpressionParser(ParserSettings.defaults(), () -> NOW, true);
    final JsonImpressionParser jackson = new JsonImpressionParser(ParserSettings.defaults(), () -> NOW, false);
    final FlatImpressionScanner scanner = new FlatImpressionScanner("requestId", "adId", "ts");
    int compared;
    int scanned;

    /**
     * Mutations per run: 60,000 took 12 s on the shared 2-core machine under load (two in three mutants are dead
     * letters, each a Jackson exception, parsed twice), so 40,000. For a longer hunt:
     * {@code -Dimpressiondedup.fuzz.mutations=2000000 -Dimpressiondedup.fuzz.seed=17}.
     */
    static final int MUTATIONS = Integer.getInteger("impressiondedup.fuzz.mutations", 40_000);

    @Test
    void theFastPathGivesWhatJacksonGivesOnFortyThousandMutatedRecords() {
        List<byte[]> seeds = seeds();
        SplittableRandom random = new SplittableRandom(Long.getLong("impressiondedup.fuzz.seed", 16));
        int fastImpressions = 0;
        int mutations = MUTATIONS;
        for (int m = 0; m < mutations; m++) {
            byte[] mutant = seeds.get(random.nextInt(seeds.size()));
            for (int k = 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0); k > 0; k--) {
                mutant = mutate(mutant, random);
            }
            if (compare(mutant) && fast.parse(raw(mutant)).isImpression()) {
                fastImpressions++;
            }
        }
        // The mutations must reach both sides of the fast path: accepted (some as impressions), and bailed out.
        assertThat(scanned).as("mutants the scanner accepted").isBetween(mutations / 5, mutations * 4 / 5);
        assertThat(fastImpressions).as("mutants the scanner accepted that are impressions").isGreaterThan(mutations / 10);
    }

    @Test
    void theFastPathGivesWhatJacksonGivesForValuesOfEveryShapeInEveryField() {
        String[] values = {
            "0", "-0", "00", "-00", "01", "-01", "+1", "1", "-1", "1.", ".5", "-.5", "1.5", "-0.0", "0.5e3", "1e5", "1E+5", "1e-5",
            "1e", "1e+", "1E-", "-", "--1", "1-", "1..2", "1.2.3", "0x10", "1_000", "NaN", "-NaN", "Infinity", "-Infinity",
            "1763812800000", "-1763812800000", "946684800000", "946684799999", "999999999999999999", "9999999999999999999",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "123456789012345678901234567890", "1" + "0".repeat(31), "1" + "0".repeat(32), "1" + "0".repeat(70), "0." + "1".repeat(40),
            "1e999999", "true", "false", "null", "truex", "tru", "nul", "True", "NULL", "t", "\"\"", "\"x\"", "\"a b\"", "\"-0\"",
            "\"2026-11-22T10:00:00Z\"", "\"2026-11-22T10:00:00.250+01:00\"", "\"2026-11-22T10:00:00\"", "\"1999-12-31T23:59:59Z\"",
            "\"+292278994-08-17T07:12:55.807Z\"", "\"9999-12-31T23:59:59Z\"", "\"2026-11-22t10:00:00z\"", "'x'", "x", "{}", "[]",
            "{\"a\":1}", "[1]", "\"\\u0041\"", "\"a\\\"b\"", "\"tab\there\"", "\"\u00e9\"", "1 2", "\"a\" \"b\"", "",
        };
        String[] fields = {"requestId", "adId", "ts", "other"};
        for (String field : fields) {
            for (String v : values) {
                for (String layout : new String[] {
                    "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"" + field + "\":" + v + "}",
                    "{\"" + field + "\":" + v + ",\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000}",
                    "{\"requestId\":\"r\",\"adId\":17,\"ts\":1763812800000,\"" + field + "\" : " + v + " }",
                }) {
                    // The configured field given as v (first, or twice), or another field beside them.
                    String json = field.equals("other") ? layout : layout.replaceFirst("\"" + field + "\":[^,}]*,", "");
                    compare(json.getBytes(StandardCharsets.UTF_8));
                    compare(layout.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(compared).isEqualTo(values.length * fields.length * 6);
    }

    @Test
    void theFastPathGivesWhatJacksonGivesWithOtherFieldNames() {
        JsonImpressionParser customFast = new JsonImpressionParser(new ParserSettings("rid", "aid", "\u00e9", 1000, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW, true);
        JsonImpressionParser customJackson = new JsonImpressionParser(new ParserSettings("rid", "aid", "\u00e9", 1000, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> NOW, false);
        for (String json : new String[] {
            "{\"rid\":\"r\",\"aid\":\"a\",\"\u00e9\":1763812800000}",
            "{\"rid\":\"r\",\"aid\":\"a\",\"\\u00e9\":1763812800000}",
            "{\"rid\":\"r\",\"aid\":\"a\",\"e\":1763812800000}",
            "{\"rid\":\"r\",\"aid\":\"a\"}",
            "{\"rid\":\"r\",\"aid\":\"a\",\"requestId\":\"s\",\"rid\":\"t\"}",
        }) {
            RawKafkaRecord record = raw(json.getBytes(StandardCharsets.UTF_8));
            assertSame(json.getBytes(StandardCharsets.UTF_8), customFast.parse(record), customJackson.parse(record));
        }
    }

    @Test
    void theFastPathGivesWhatJacksonGivesWithAThreeFieldKeyOnTenThousandMutatedRecords() {
        // A configured key: three names (the scanner locates four fields), an integer allowed in the first.
        List<FieldPath> key = List.of(FieldPath.parse("requestId"), FieldPath.parse("adId"), FieldPath.parse("placementId"));
        ParserSettings threeFields = new ParserSettings(key, FieldPath.parse("ts"), 64 * 1024, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME);
        JsonImpressionParser keyedFast = new JsonImpressionParser(threeFields, () -> NOW, true);
        JsonImpressionParser keyedJackson = new JsonImpressionParser(threeFields, () -> NOW, false);
        List<byte[]> seeds = seeds();
        seeds.add("{\"requestId\":17,\"adId\":\"a\",\"placementId\":-0,\"ts\":1763812800000}".getBytes(StandardCharsets.UTF_8));
        seeds.add("{\"placementId\":\"p\",\"requestId\":\"r\",\"adId\":1,\"ts\":1763812800000}".getBytes(StandardCharsets.UTF_8));
        SplittableRandom random = new SplittableRandom(Long.getLong("impressiondedup.fuzz.seed", 18));
        int impressions = 0;
        for (int m = 0; m < 10_000; m++) {
            byte[] mutant = mutate(seeds.get(random.nextInt(seeds.size())), random);
            ParsedRecord fastResult = keyedFast.parse(raw(mutant));
            assertSame(mutant, fastResult, keyedJackson.parse(raw(mutant)));
            impressions += fastResult.isImpression() ? 1 : 0;
        }
        assertThat(impressions).as("mutants that are impressions").isGreaterThan(1_000);
    }

    @Test
    void aRunOfPlainStringBytesEndsWhereAByteAtATimeReadingEndsIt() {
        // The scanner reads strings eight bytes at a time: it must stop exactly where a byte-by-byte reading stops,
        // at the first quote, backslash, control byte, DEL or byte beyond ASCII, whatever follows it in its word.
        SplittableRandom random = new SplittableRandom(8);
        byte[] stops = bytesOf("\"\\", 0x00, 0x01, 0x1F, 0x7F, 0x80, 0x81, 0xA2, 0xDC, 0xFF);
        for (int round = 0; round < 200_000; round++) {
            byte[] value = new byte[random.nextInt(40)];
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) (0x20 + random.nextInt(0x5F));
                if (value[i] == '"' || value[i] == '\\') {
                    value[i] = 'a';
                }
            }
            for (int k = random.nextInt(3); k > 0 && value.length > 0; k--) {
                value[random.nextInt(value.length)] = stops[random.nextInt(stops.length)];
            }
            int from = value.length == 0 ? 0 : random.nextInt(value.length + 1);
            int expected = from;
            while (expected < value.length && value[expected] >= 0x20 && value[expected] != '"' && value[expected] != '\\'
                    && value[expected] != 0x7F) {
                expected++;
            }
            assertThat(FlatImpressionScanner.plainRun(value, from)).as("%s from %d", Arrays.toString(value), from).isEqualTo(expected);
            boolean ff = false;
            for (byte b : value) {
                ff |= b == (byte) 0xFF;
            }
            assertThat(JsonImpressionParser.hasByteFF(value)).as(Arrays.toString(value)).isEqualTo(ff);
        }
    }

    /** Parses {@code value} both ways and fails if they differ; returns whether the scanner accepted it. */
    boolean compare(byte[] value) {
        RawKafkaRecord record = raw(value);
        assertSame(value, fast.parse(record), jackson.parse(record));
        compared++;
        boolean accepted = value.length > 0 && scanner.scan(value);
        if (accepted) {
            scanned++;
        }
        return accepted;
    }

    static void assertSame(byte[] value, ParsedRecord fast, ParsedRecord jackson) {
        String same = fast.isImpression()
                ? fast.impression().requestId() + "|" + fast.impression().adId() + "|" + fast.impression().eventTime() + "|"
                        + fast.impression().digestHigh() + "|" + fast.impression().digestLow()
                : fast.deadLetter().reason() + "|" + fast.deadLetter().error();
        String expected = jackson.isImpression()
                ? jackson.impression().requestId() + "|" + jackson.impression().adId() + "|" + jackson.impression().eventTime() + "|"
                        + jackson.impression().digestHigh() + "|" + jackson.impression().digestLow()
                : jackson.deadLetter().reason() + "|" + jackson.deadLetter().error();
        if (fast.isImpression() != jackson.isImpression() || !same.equals(expected)) {
            fail("on %s (%s): the fast path gives %s (%s), Jackson %s (%s)", new String(value, StandardCharsets.ISO_8859_1),
                    Arrays.toString(value), fast.isImpression() ? "an impression" : "a dead letter", same,
                    jackson.isImpression() ? "an impression" : "a dead letter", expected);
        }
    }

    static RawKafkaRecord raw(byte[] value) {
        return RawKafkaRecord.ofValue("in", 0, 0, value);
    }

    /** The generator's records (impressions with epoch and ISO times, its malformed and future ones) and hand-made ones. */
    static List<byte[]> seeds() {
        List<byte[]> seeds = new ArrayList<>();
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(2000).seed(16)
                .start(Instant.ofEpochMilli(NOW).minus(Duration.ofHours(2))).span(Duration.ofHours(2))
                .isoTimestampShare(0.2).malformedShare(0.05).futureShare(0.02).build());
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            if (record.value != null) {
                seeds.add(record.value);
            }
        }
        for (String json : new String[] {
            GOOD,
            "{}",
            " \t\r\n{ \"requestId\" : \"r\" , \"adId\" : -0 , \"ts\" : \"2026-11-22T10:00:00.250+01:00\" } \n",
            "{\"requestId\":\"r-1\",\"adId\":\"a-1\",\"ts\":1763812800000,\"extra\":{\"nested\":[1,2,3]},\"price\":1.5}",
            "{\"requestId\":\"r\",\"adId\":17,\"ts\":\"2026-11-22T10:00:00.250+01:00\"}",
            "{\"requestId\":\"a\",\"requestId\":\"b\",\"adId\":\"x\",\"ts\":1763812800000}",
            "{\"requestId\":\"r\",\"price\":1.5,\"adId\":\"a\",\"ts\":1763812800000,\"price\":0.01}",
            "{\"requestId\":\"a\",\"adId\":\"x\",\"ts\":1763812800000,\"request\\u0049d\":\"b\"}",
            "{\"requestId\":\"r\\ud800x\",\"adId\":\"a\",\"ts\":1763812800000}",
            "{\"requestId\":\"r\uD83D\uDE00\",\"adId\":\"\u00e9\",\"ts\":1763812800000,\"ua\":\"\uFFFD\"}",
            "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000}{}",
            "[\"r\",\"a\",1]",
            "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":946684799999}",
            "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":\"+292278994-08-17T07:12:55.807Z\"}",
            "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":9223372036854775808}",
            "{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,"
                    + "\"i\":9,\"j\":10,\"k\":11,\"l\":12,\"m\":13,\"n\":14,\"o\":15,\"p\":16,\"q\":17,\"r\":18,\"s\":19,\"t\":20,"
                    + "\"u\":21,\"v\":22,\"w\":23,\"x\":24,\"y\":25,\"z\":26,\"A\":27,\"B\":28,\"C\":29}",
        }) {
            seeds.add(json.getBytes(StandardCharsets.UTF_8));
        }
        seeds.add(bytes(new int[] {0xEF, 0xBB, 0xBF}, GOOD));
        seeds.add(bytes("{\"adId\":\"a\",\"requestId\":\"r", new int[] {0xC0, 0xAF}, "\",\"ts\":1763812800000}"));
        seeds.add(bytes("{\"requestId\":\"r\",\"adId\":\"a\",\"ts\":1763812800000,\"ua\":\"x", new int[] {0xFF}, "\"}"));
        return seeds;
    }

    /** Bytes that matter to JSON's grammar, to the number grammar, and to the scanner's limits. */
    static final byte[] INTERESTING = bytesOf("{}[]\":,\\ \t\r\n0123456789-+.eEtrufalsn'/#xu", 0x00, 0x08, 0x0B, 0x0C, 0x1F, 0x7F, 0x80,
            0xBF, 0xC0, 0xC3, 0xE9, 0xED, 0xEF, 0xF0, 0xFF);
    static final String[] WHITE_SPACE = {" ", "\t", "\n", "\r", " \r\n\t", "\u000B", "\f", "\u00A0"};
    static final String[] NUMBERS = {"0", "-0", "00", "01", "-01", "+1", "1.", ".5", "1.5", "1e5", "1E+5", "1e-5", "1e", "-",
        "9223372036854775807", "9223372036854775808", "999999999999999999", "1763812800000", "-1763812800000", "946684799999",
        "1" + "0".repeat(40), "NaN", "Infinity", "-Infinity", "0x1", "true", "null", "\"\"", "\"s\"", "\"2026-11-22T10:00:00Z\"",
        "\"2026-11-22T12:30:00+00:00\"", "{}", "[]"};

    static byte[] mutate(byte[] value, SplittableRandom random) {
        int n = value.length;
        int at = n == 0 ? 0 : random.nextInt(n + 1);
        switch (random.nextInt(11)) {
            case 0: // delete bytes
                return n == 0 ? value : splice(value, Math.min(at, n - 1), 1 + random.nextInt(Math.min(3, n - Math.min(at, n - 1))), new byte[0]);
            case 1: // insert a byte
                return splice(value, at, 0, new byte[] {pick(random)});
            case 2: // replace a byte
                return n == 0 ? value : splice(value, Math.min(at, n - 1), 1, new byte[] {pick(random)});
            case 3: // truncate
                return Arrays.copyOf(value, at);
            case 4: // trailing bytes
                return splice(value, n, 0, random.nextBoolean() ? WHITE_SPACE[random.nextInt(4)].getBytes(StandardCharsets.UTF_8)
                        : new byte[] {pick(random), pick(random)});
            case 5: // white space (allowed or not) before or after a structural byte
            {
                int s = structural(value, random);
                String ws = WHITE_SPACE[random.nextInt(WHITE_SPACE.length)];
                return s < 0 ? value : splice(value, s + (random.nextBoolean() ? 1 : 0), 0, ws.getBytes(StandardCharsets.UTF_8));
            }
            case 6: // a field again, or another field's copy at another place
            {
                int[] field = field(value, random);
                if (field == null) {
                    return value;
                }
                byte[] copy = Arrays.copyOfRange(value, field[0], field[1]);
                int closing = lastIndexOf(value, (byte) '}');
                return closing < 0 ? value : splice(value, closing, 0, concat(",".getBytes(StandardCharsets.US_ASCII), copy));
            }
            case 7: // swap a quote for an apostrophe, or drop it
            {
                int q = indexOfNth(value, (byte) '"', random);
                return q < 0 ? value : splice(value, q, 1, random.nextBoolean() ? new byte[] {'\''} : new byte[0]);
            }
            default: // a value of another shape
            {
                int[] field = field(value, random);
                if (field == null) {
                    return value;
                }
                int colon = indexOf(value, (byte) ':', field[0]);
                byte[] replacement = NUMBERS[random.nextInt(NUMBERS.length)].getBytes(StandardCharsets.US_ASCII);
                return colon < 0 || colon >= field[1] ? value : splice(value, colon + 1, field[1] - colon - 1, replacement);
            }
        }
    }

    static byte pick(SplittableRandom random) {
        return random.nextInt(8) == 0 ? (byte) random.nextInt(256) : INTERESTING[random.nextInt(INTERESTING.length)];
    }

    /** The offset of a random '{', '}', ',' or ':' outside strings as far as a naive reading tells, or -1. */
    static int structural(byte[] value, SplittableRandom random) {
        List<Integer> offsets = new ArrayList<>();
        for (int i = 0; i < value.length; i++) {
            byte b = value[i];
            if (b == '{' || b == '}' || b == ',' || b == ':' || b == '"') {
                offsets.add(i);
            }
        }
        return offsets.isEmpty() ? -1 : offsets.get(random.nextInt(offsets.size()));
    }

    /** The bounds of a random top-level "name":value (from the name's quote to before the next ',' or '}'), or null. */
    static int[] field(byte[] value, SplittableRandom random) {
        List<int[]> fields = new ArrayList<>();
        int start = -1;
        boolean inString = false;
        int depth = 0;
        for (int i = 0; i < value.length; i++) {
            byte b = value[i];
            if (inString) {
                if (b == '\\') {
                    i++;
                } else if (b == '"') {
                    inString = false;
                }
            } else if (b == '"') {
                inString = true;
                if (depth == 1 && start < 0) {
                    start = i;
                }
            } else if (b == '{' || b == '[') {
                depth++;
            } else if (b == '}' || b == ']') {
                if (depth == 1 && start >= 0) {
                    fields.add(new int[] {start, i});
                    start = -1;
                }
                depth--;
            } else if (b == ',' && depth == 1 && start >= 0) {
                fields.add(new int[] {start, i});
                start = -1;
            }
        }
        return fields.isEmpty() ? null : fields.get(random.nextInt(fields.size()));
    }

    static int indexOfNth(byte[] value, byte b, SplittableRandom random) {
        int count = 0;
        for (byte v : value) {
            count += v == b ? 1 : 0;
        }
        if (count == 0) {
            return -1;
        }
        int nth = random.nextInt(count);
        for (int i = 0; i < value.length; i++) {
            if (value[i] == b && nth-- == 0) {
                return i;
            }
        }
        return -1;
    }

    static int indexOf(byte[] value, byte b, int from) {
        for (int i = from; i < value.length; i++) {
            if (value[i] == b) {
                return i;
            }
        }
        return -1;
    }

    static int lastIndexOf(byte[] value, byte b) {
        for (int i = value.length - 1; i >= 0; i--) {
            if (value[i] == b) {
                return i;
            }
        }
        return -1;
    }

    static byte[] splice(byte[] value, int at, int remove, byte[] insert) {
        byte[] result = new byte[value.length - remove + insert.length];
        System.arraycopy(value, 0, result, 0, at);
        System.arraycopy(insert, 0, result, at, insert.length);
        System.arraycopy(value, at + remove, result, at + insert.length, value.length - at - remove);
        return result;
    }

    static byte[] concat(byte[] a, byte[] b) {
        return splice(a, a.length, 0, b);
    }

    static byte[] bytesOf(String ascii, int... more) {
        byte[] result = Arrays.copyOf(ascii.getBytes(StandardCharsets.US_ASCII), ascii.length() + more.length);
        for (int i = 0; i < more.length; i++) {
            result[ascii.length() + i] = (byte) more[i];
        }
        return result;
    }

    /** Text and raw bytes in one value: {@link JsonImpressionParserTest#bytes}. */
    static byte[] bytes(Object... parts) {
        return JsonImpressionParserTest.bytes(parts);
    }
}
