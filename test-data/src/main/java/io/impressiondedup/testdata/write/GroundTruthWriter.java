package io.impressiondedup.testdata.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import io.impressiondedup.testdata.GeneratedRecord;

/**
 * Writes the ground truth: one CSV row per generated record.
 *
 * <pre>
 *   seq,class,expected_reason,group,request_id,ad_id,event_time
 *   0,unique,,0,6f1c2a9e-...,ad-17,1763769600123
 *   5,duplicate-within-retention,,0,6f1c2a9e-...,ad-17,1763769605123
 *   9,late,late,,0b7d...,ad-3,1763510400000
 * </pre>
 *
 * {@code group} is empty for dead-letter classes, {@code event_time} (epoch millis) for records
 * without a valid one. Ids never contain commas (the generator makes them).
 */
public final class GroundTruthWriter implements AutoCloseable {

    public static final String HEADER = "seq,class,expected_reason,group,request_id,ad_id,event_time\n";

    private final UnsynchronizedBufferedOutputStream out;

    public GroundTruthWriter(Path file) throws IOException {
        this.out = UnsynchronizedBufferedOutputStream.toNewFile(file);
        out.writeAscii(HEADER);
    }

    public void write(GeneratedRecord record) throws IOException {
        out.writeDecimal(record.seq);
        out.write(',');
        out.writeAscii(record.recordClass.label());
        out.write(',');
        if (record.expectedReason != null) {
            out.writeAscii(record.expectedReason);
        }
        out.write(',');
        if (record.group >= 0) {
            out.writeDecimal(record.group);
        }
        out.write(',');
        writeId(record.requestId);
        out.write(',');
        writeId(record.adId);
        out.write(',');
        if (record.eventTime != Long.MIN_VALUE) {
            out.writeDecimal(record.eventTime);
        }
        out.write('\n');
    }

    private void writeId(String id) throws IOException {
        for (int i = 0; i < id.length(); i++) {
            if (id.charAt(i) >= 0x80) {
                out.write(id.getBytes(StandardCharsets.UTF_8));
                return;
            }
        }
        out.writeAscii(id);
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
