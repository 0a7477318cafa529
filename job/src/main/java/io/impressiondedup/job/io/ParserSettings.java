package io.impressiondedup.job.io;

import java.io.Serializable;
import java.time.Duration;

/** What the source-side parser needs: field names and the limits that send a record to the dead letters. */
public final class ParserSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    final String requestIdField;
    final String adIdField;
    final String timestampField;
    final int maxRecordBytes;
    final long maxFutureSkewMillis;

    public ParserSettings(String requestIdField, String adIdField, String timestampField, int maxRecordBytes, Duration maxFutureSkew) {
        this.requestIdField = requestIdField;
        this.adIdField = adIdField;
        this.timestampField = timestampField;
        this.maxRecordBytes = maxRecordBytes;
        this.maxFutureSkewMillis = maxFutureSkew.toMillis();
    }

    public static ParserSettings defaults() {
        return new ParserSettings("requestId", "adId", "ts", 64 * 1024, Duration.ofHours(1));
    }
}
