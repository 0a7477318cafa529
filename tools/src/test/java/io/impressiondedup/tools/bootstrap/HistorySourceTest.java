package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistorySourceTest {

    private static final Instant MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    @TempDir
    Path dir;

    private Long newestIn(String name, byte[] content) throws Exception {
        Path file = dir.resolve(name);
        Files.write(file, content);
        return HistorySource.ofFile(file.toString(), null, MIN_EVENT_TIME).scanFile(2, true).newest();
    }

    @Test
    void theFirstPassOverAFileTakesTheNewestTimeOfTheRowsTheStatePassInsertsAndNoBadRow() throws Exception {
        byte[] notUtf8 = {'r', (byte) 0xC0, ',', 'a', ',', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '\n'};
        String rows = "requestId,adId,ts\n"
                + "r1,a1,1700000000000\n"
                + ",a2,9999999999999\n" // empty request id: bad
                + "r3,a3,1700000000500\n"
                + "r4,a4\n" // two fields: bad
                + "r5,a5,2023-11-14T22:13:21Z\n" // ISO-8601: 1700000001000
                + "r6,a6,946684799999\n"; // before --min-event-time: bad
        byte[] head = rows.getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[head.length + notUtf8.length];
        System.arraycopy(head, 0, content, 0, head.length);
        System.arraycopy(notUtf8, 0, content, head.length, notUtf8.length);
        assertThat(newestIn("history.csv", content)).isEqualTo(1700000001000L);
    }

    @Test
    void aCompressedFileIsReadAsTheStatePassReadsIt() throws Exception {
        java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
        try (OutputStream out = new GZIPOutputStream(gz)) {
            out.write("r1,a1,1700000000000\nr2,a2,1700000000007".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(newestIn("history.csv.gz", gz.toByteArray())).isEqualTo(1700000000007L);
    }

    @Test
    void aFileWithoutAnImpressionHasNoNewestTime() throws Exception {
        assertThat(newestIn("empty.csv", new byte[0])).isNull();
        assertThat(newestIn("header.csv", "requestId,adId,ts\n,a,1700000000000\n".getBytes(StandardCharsets.UTF_8))).isNull();
    }
}
