package io.impressiondedup.testdata.verify;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import io.impressiondedup.testdata.TestDataHeaders;

/**
 * What the job wrote, per generated record: how often it appeared in the output topic, how often in
 * the dead-letter topic, and with which reason. Records are identified by their {@link
 * TestDataHeaders#SEQ} header; records without one, or with one the ground truth does not know,
 * are counted as unidentified.
 */
public final class ObservedRecords {

    private final byte[] inOutput;
    private final byte[] inDeadLetters;
    private final byte[] reasons;
    private long outputRecords;
    private long deadLetterRecords;
    private long unidentified;
    private final Map<String, Long> unknownReasons = new TreeMap<>();

    public ObservedRecords(int truthSize) {
        inOutput = new byte[truthSize];
        inDeadLetters = new byte[truthSize];
        reasons = new byte[truthSize];
    }

    /** One record read from the output topic. */
    public void output(byte[] seqHeader) {
        outputRecords++;
        int seq = seqOf(seqHeader);
        if (seq < 0) {
            unidentified++;
        } else if (inOutput[seq] < Byte.MAX_VALUE) {
            inOutput[seq]++;
        }
    }

    /** One record read from the dead-letter topic. */
    public void deadLetter(byte[] seqHeader, byte[] reasonHeader) {
        deadLetterRecords++;
        int seq = seqOf(seqHeader);
        if (seq < 0) {
            unidentified++;
            return;
        }
        if (inDeadLetters[seq] < Byte.MAX_VALUE) {
            inDeadLetters[seq]++;
        }
        String reason = reasonHeader == null ? "(none)" : new String(reasonHeader, StandardCharsets.UTF_8);
        int code = GroundTruth.reasonCode(reason);
        if (code <= 0) {
            unknownReasons.merge(reason, 1L, Long::sum);
            code = Byte.MAX_VALUE;
        }
        reasons[seq] = (byte) code;
    }

    private int seqOf(byte[] header) {
        if (header == null) {
            return -1;
        }
        try {
            long seq = Long.parseLong(new String(header, StandardCharsets.US_ASCII));
            return seq >= 0 && seq < inOutput.length ? (int) seq : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    int timesInOutput(int seq) {
        return inOutput[seq];
    }

    int timesInDeadLetters(int seq) {
        return inDeadLetters[seq];
    }

    /** The observed dead-letter reason, or {@code null} (never dead-lettered, or an unknown reason). */
    String reason(int seq) {
        int code = reasons[seq];
        return code > 0 && code < GroundTruth.REASONS.length ? GroundTruth.REASONS[code] : null;
    }

    /** The observed dead-letter reason as an index into {@link GroundTruth#REASONS}; {@link Byte#MAX_VALUE} if unknown, 0 if none. */
    int reasonCode(int seq) {
        return reasons[seq];
    }

    boolean hadUnknownReason(int seq) {
        return reasons[seq] == Byte.MAX_VALUE;
    }

    long outputRecords() {
        return outputRecords;
    }

    long deadLetterRecords() {
        return deadLetterRecords;
    }

    long unidentified() {
        return unidentified;
    }

    Map<String, Long> unknownReasons() {
        return unknownReasons;
    }
}
