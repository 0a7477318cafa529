package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class HistoryRowParserTest {

    private final HistoryRowParser parser = new HistoryRowParser(Instant.parse("2000-01-01T00:00:00Z"));

    @Test
    void epochMillisAndIsoInstantsWithAnOffsetAreTheSameTime() {
        HistoryRowParser.Row millis = parser.parse(2, "r1,ad-1,1763805600000");
        HistoryRowParser.Row iso = parser.parse(3, "r1,ad-1,2025-11-22T11:00:00+01:00");
        assertThat(millis.isImpression()).isTrue();
        assertThat(iso.eventTime()).isEqualTo(millis.eventTime()).isEqualTo(Instant.parse("2025-11-22T10:00:00Z").toEpochMilli());
        assertThat(iso.requestId()).isEqualTo("r1");
        assertThat(iso.adId()).isEqualTo("ad-1");
    }

    @Test
    void aHeaderIsAcceptedOnTheFirstLineOnly() {
        assertThat(parser.parse(1, "requestId,adId,timestamp").header()).isTrue();
        HistoryRowParser.Row later = parser.parse(2, "requestId,adId,timestamp");
        assertThat(later.header()).isFalse();
        assertThat(later.error()).startsWith("line 2: timestamp 'timestamp' is neither");
    }

    @Test
    void quotedFieldsMayHoldCommasAndQuotesAndIdsAreNotTrimmed() {
        HistoryRowParser.Row row = parser.parse(5, "\"r,1 \"\"x\"\"\", ad,\"1763805600000\"");
        assertThat(row.requestId()).isEqualTo("r,1 \"x\"");
        assertThat(row.adId()).isEqualTo(" ad");
    }

    @Test
    void badRowsNameTheirLineAndWhatIsWrong() {
        assertThat(parser.parse(7, "r1,ad1").error()).isEqualTo("line 7: expected 3 fields requestId,adId,timestamp but found 2: r1,ad1");
        assertThat(parser.parse(8, "r1,ad1,yesterday").error()).startsWith("line 8: timestamp 'yesterday' is neither epoch milliseconds");
        assertThat(parser.parse(9, ",ad1,1763805600000").error()).isEqualTo("line 9: empty request id");
        assertThat(parser.parse(10, "r1,,1763805600000").error()).isEqualTo("line 10: empty ad id");
        assertThat(parser.parse(11, "r1,ad1,2025-11-22T10:00:00").error()).as("an instant without an offset is ambiguous")
                .startsWith("line 11: timestamp");
        assertThat(parser.parse(12, "r1,ad1,99999999999999999999").error()).startsWith("line 12: timestamp");
        assertThat(parser.parse(13, "\"r1,ad1,1763805600000").error()).startsWith("line 13: unterminated quoted field");
        assertThat(parser.parse(14, "").error()).startsWith("line 14: expected 3 fields");
    }

    @Test
    void theSimpleRowPathReadsEveryLineAsTheGeneralPathDoes() {
        String[] lines = {"r1,ad1,946684800000", "r1,ad1,946684799999", "r1,ad1,1763805600000", "r1,ad1,-1", "r1,ad1,+1763805600000",
                "r1,ad1,-", "r1,ad1,", "r1,ad1,1.5", "r1,ad1,9223372036854775807", "r1,ad1,9223372036854775808",
                "r1,ad1,12345678901234567890", "r1,ad1,00000000000000000001763805600000", "r1,ad1,0001763805600000", ",ad1,1763805600000",
                "r1,,1763805600000", "r1,ad1", "r1", "", ",,", "r1,ad1,1763805600000,", "r1,ad1,17638056,00000", "\"r1\",ad1,1763805600000",
                "r1,ad1,\"1763805600000\"", "r\"1,ad1,1763805600000", "r1,ad1,2025-11-22T10:00:00Z", "requestId,adId,timestamp",
                " r1, ad1,1763805600000", "r1,ad1, 1763805600000", "r1,ad1,1763805600000 ", "r1,ad1,\u0661\u0662"};
        for (long lineNumber : new long[] {1, 2}) {
            for (String line : lines) {
                assertThat(parser.parse(lineNumber, line)).as("line %s: %s", lineNumber, line)
                        .isEqualTo(parser.parseGeneral(lineNumber, line));
            }
        }
    }

    @Test
    void aTimestampBeforeTheMinimumEventTimeIsBadAsTheJobDeadLettersIt() {
        assertThat(parser.parse(4, "r1,ad1,946684799999").error())
                .isEqualTo("line 4: timestamp 946684799999 is before --min-event-time 2000-01-01T00:00:00Z (the job dead-letters such records)");
        assertThat(parser.parse(4, "r1,ad1,946684800000").isImpression()).isTrue();
    }

    @Test
    void linesAreNumberedFromOneAndALineThatIsNotUtf8IsAnErrorNotReplacementCharacters() throws Exception {
        byte[] bytes = "a,b,1\r\n\u00e9,b,2\n".getBytes(StandardCharsets.UTF_8);
        byte[] withBadByte = new byte[bytes.length + 7];
        System.arraycopy(bytes, 0, withBadByte, 0, bytes.length);
        System.arraycopy(new byte[] {'r', (byte) 0xC0, (byte) 0xAF, ',', 'b', ',', '3'}, 0, withBadByte, bytes.length, 7);
        NumberedLineInputFormat.LineReader reader = new NumberedLineInputFormat.LineReader(new ByteArrayInputStream(withBadByte));
        NumberedLine first = reader.read();
        NumberedLine second = reader.read();
        NumberedLine third = reader.read();
        assertThat(first.number).isEqualTo(1);
        assertThat(first.text).isEqualTo("a,b,1");
        assertThat(second.text).isEqualTo("\u00e9,b,2");
        assertThat(third.number).isEqualTo(3);
        assertThat(third.text).isNull();
        assertThat(third.error).startsWith("the row is not UTF-8");
        assertThat(reader.read()).isNull();
    }

    @Test
    void linesSpanningManySmallReadsComeOutWholeAndALineOverTheLimitIsAnErrorThatKeepsTheNumbering() throws Exception {
        byte[] longLine = new byte[NumberedLineInputFormat.MAX_LINE_BYTES + 1];
        java.util.Arrays.fill(longLine, (byte) 'x');
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write("first,ad,1\r".getBytes(StandardCharsets.UTF_8));
        bytes.write("\n\n".getBytes(StandardCharsets.UTF_8));
        bytes.write(longLine);
        bytes.write("\n\u00e9 spans,ad,4".getBytes(StandardCharsets.UTF_8)); // the last line has no line end
        byte[] all = bytes.toByteArray();
        // At most 3 bytes per read: every line end, the \r\n and the two bytes of the e acute fall across reads.
        java.io.InputStream trickle = new java.io.FilterInputStream(new ByteArrayInputStream(all)) {
            @Override
            public int read(byte[] buffer, int offset, int length) throws java.io.IOException {
                return super.read(buffer, offset, Math.min(length, 3));
            }
        };
        for (java.io.InputStream in : java.util.List.of(new ByteArrayInputStream(all), trickle)) {
            NumberedLineInputFormat.LineReader reader = new NumberedLineInputFormat.LineReader(in);
            assertThat(reader.read().text).isEqualTo("first,ad,1");
            assertThat(reader.read().text).isEmpty();
            NumberedLine tooLong = reader.read();
            assertThat(tooLong.number).isEqualTo(3);
            assertThat(tooLong.error).isEqualTo("the row is longer than " + NumberedLineInputFormat.MAX_LINE_BYTES + " bytes");
            NumberedLine last = reader.read();
            assertThat(last.number).isEqualTo(4);
            assertThat(last.text).isEqualTo("\u00e9 spans,ad,4");
            assertThat(reader.read()).isNull();
        }
    }
}
