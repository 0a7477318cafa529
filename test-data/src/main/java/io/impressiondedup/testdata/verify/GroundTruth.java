package io.impressiondedup.testdata.verify;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.write.GroundTruthWriter;

/**
 * The ground truth of a generated stream, read from its CSV ({@link GroundTruthWriter}) into arrays
 * indexed by sequence number: a few bytes per record, so 10M records fit in about 60 MB.
 */
public final class GroundTruth {

    private static final RecordClass[] CLASSES = RecordClass.values();
    static final String[] REASONS = {null, "malformed", "oversized", "late", "future-timestamp", "schema-unknown"};

    private final byte[] classes;
    private final byte[] reasons;
    private final int[] groups;

    private GroundTruth(byte[] classes, byte[] reasons, int[] groups) {
        this.classes = classes;
        this.reasons = reasons;
        this.groups = groups;
    }

    public static GroundTruth read(Path file) throws IOException {
        int capacity = 1 << 16;
        byte[] classes = new byte[capacity];
        byte[] reasons = new byte[capacity];
        int[] groups = new int[capacity];
        int count = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String header = reader.readLine();
            if (header == null || !(header + "\n").equals(GroundTruthWriter.HEADER)) {
                throw new IOException(file + " is not a ground-truth file (header: " + header + ")");
            }
            String line;
            while ((line = reader.readLine()) != null) {
                String[] fields = line.split(",", -1);
                if (fields.length != 7) {
                    throw new IOException(file + ": row " + (count + 1) + " has " + fields.length + " fields: " + line);
                }
                long seq = Long.parseLong(fields[0]);
                if (seq != count) {
                    throw new IOException(file + ": expected seq " + count + " but found " + seq);
                }
                if (count == classes.length) {
                    capacity = classes.length * 2;
                    classes = Arrays.copyOf(classes, capacity);
                    reasons = Arrays.copyOf(reasons, capacity);
                    groups = Arrays.copyOf(groups, capacity);
                }
                classes[count] = (byte) RecordClass.fromLabel(fields[1]).ordinal();
                reasons[count] = (byte) reasonCode(fields[2]);
                groups[count] = fields[3].isEmpty() ? -1 : Integer.parseInt(fields[3]);
                count++;
            }
        }
        return new GroundTruth(Arrays.copyOf(classes, count), Arrays.copyOf(reasons, count), Arrays.copyOf(groups, count));
    }

    /**
     * The event times of a ground-truth file by sequence number ({@link Long#MIN_VALUE} where a record has
     * none): read apart from {@link #read}, which keeps a few bytes per record, for the checks that need them.
     */
    public static long[] eventTimes(Path file) throws IOException {
        long[] times = new long[1 << 16];
        int count = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            reader.readLine(); // header, checked by read()
            String line;
            while ((line = reader.readLine()) != null) {
                if (count == times.length) {
                    times = Arrays.copyOf(times, times.length * 2);
                }
                String time = line.substring(line.lastIndexOf(',') + 1);
                times[count++] = time.isEmpty() ? Long.MIN_VALUE : Long.parseLong(time);
            }
        }
        return Arrays.copyOf(times, count);
    }

    static int reasonCode(String reason) {
        if (reason == null || reason.isEmpty()) {
            return 0;
        }
        for (int i = 1; i < REASONS.length; i++) {
            if (REASONS[i].equals(reason)) {
                return i;
            }
        }
        return -1;
    }

    public int size() {
        return classes.length;
    }

    public RecordClass recordClass(int seq) {
        return CLASSES[classes[seq]];
    }

    /** The dead-letter reason this record must get, or {@code null}. */
    public String expectedReason(int seq) {
        return REASONS[reasons[seq]];
    }

    /** The identity group (see {@link GeneratedRecord}), or -1. */
    public int group(int seq) {
        return groups[seq];
    }
}
