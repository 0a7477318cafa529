package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileInputSplit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryFilePartsTest {

    private static final Instant MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    @TempDir
    Path dir;

    /** A header, CRLF and LF line ends, an empty line, a line longer than the small parts, a line not UTF-8, no final line end. */
    private static byte[] history() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("requestId,adId,ts\r\nr1,a1,1700000000000\n\nr2,a2,1700000000009\r\n".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(("r-" + "x".repeat(300) + ",a3,1700000000004\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(new byte[] {'r', (byte) 0xC0, ',', 'a', ',', '1', '\n'});
        for (int i = 0; i < 40; i++) {
            out.writeBytes(("r" + i + ",a" + i + "," + (1700000000000L + i % 7) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes("requestId,adId,ts\nlast,a,1700000000001".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private static List<String> wholeFileLines(byte[] content) throws Exception {
        NumberedLineInputFormat.LineReader reader = new NumberedLineInputFormat.LineReader(new ByteArrayInputStream(content));
        List<String> lines = new ArrayList<>();
        for (NumberedLine line = reader.read(); line != null; line = reader.read()) {
            lines.add(describe(line));
        }
        return lines;
    }

    private static String describe(NumberedLine line) {
        return line.number + ":" + (line.text != null ? line.text : "error " + line.error.substring(0, 22));
    }

    /** Every split of {@code parts}, read in the file's order, as the job's subtasks read them. */
    private static List<String> partLines(Path file, HistoryFileParts parts) throws Exception {
        NumberedLineInputFormat format = new NumberedLineInputFormat(file.toString(), parts);
        format.configure(new Configuration());
        List<String> lines = new ArrayList<>();
        for (FileInputSplit split : format.createInputSplits(2)) {
            format.open(split);
            while (!format.reachedEnd()) {
                lines.add(describe(format.nextRecord(null)));
            }
            format.close();
        }
        return lines;
    }

    @Test
    void partsOfAnySizeReadTheFileLinesWithTheFileLineNumbers() throws Exception {
        byte[] content = history();
        Path file = dir.resolve("history.csv");
        Files.write(file, content);
        List<String> expected = wholeFileLines(content);
        assertThat(expected).hasSize(48);
        for (long partBytes : new long[] {1, 2, 7, 19, 20, 21, 64, 300, 333, content.length - 1, content.length, 1 << 20}) {
            HistoryFileParts parts = HistoryFileParts.scan(file.toString(), MIN_EVENT_TIME, partBytes, 3, true);
            assertThat(partLines(file, parts)).as("parts of %s bytes", partBytes).isEqualTo(expected);
            assertThat(parts.newest()).as("parts of %s bytes", partBytes).isEqualTo(1700000000009L);
            assertThat(parts.rows()).as("the lines but the header on line 1, parts of %s bytes", partBytes).isEqualTo(47);
            if (partBytes <= 64) {
                assertThat(parts.parts().size()).as("parts of %s bytes", partBytes).isGreaterThan(10);
            }
        }
    }

    @Test
    void theScanCountsRowsButLooksForNoTimeUnlessAskedAndAnEmptyFileIsOneEmptyPart() throws Exception {
        Path file = dir.resolve("history.csv");
        Files.write(file, history());
        HistoryFileParts withoutTimes = HistoryFileParts.scan(file.toString(), MIN_EVENT_TIME, 64, 2, false);
        assertThat(withoutTimes.newest()).isNull();
        assertThat(withoutTimes.rows()).isEqualTo(47);
        Path empty = dir.resolve("empty.csv");
        Files.write(empty, new byte[0]);
        HistoryFileParts parts = HistoryFileParts.scan(empty.toString(), MIN_EVENT_TIME, 64, 2, true);
        assertThat(parts.parts()).hasSize(1);
        assertThat(partLines(empty, parts)).isEmpty();
        assertThat(parts.rows()).isZero();
    }

    @Test
    void aCompressedFileIsOnePartReadFromItsStart() throws Exception {
        byte[] content = history();
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gz)) {
            out.write(content);
        }
        Path file = dir.resolve("history.csv.gz");
        Files.write(file, gz.toByteArray());
        HistoryFileParts parts = HistoryFileParts.scan(file.toString(), MIN_EVENT_TIME, 16, 2, true);
        assertThat(parts.parts()).hasSize(1);
        assertThat(partLines(file, parts)).isEqualTo(wholeFileLines(content));
        assertThat(parts.newest()).isEqualTo(1700000000009L);
    }
}
