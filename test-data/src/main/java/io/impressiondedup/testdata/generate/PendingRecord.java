package io.impressiondedup.testdata.generate;

/**
 * A record waiting for its due time: a copy (its own event time, its original's seq and payload),
 * or a delayed client's impression (the event time it was stamped with; no seq or payload yet).
 */
final class PendingRecord {
    final long eventTime;
    /** The seq of the impression a copy is of; -1 for a delayed client's impression. */
    final long originalSeq;
    final String requestId;
    final String adId;
    /** A copy's value, shared with its original; null for a delayed client's impression, drawn when written. */
    final Payload payload;
    /** For a copy beyond the retention, the others of its impression; null for any other record. */
    final BeyondRetentionCopies beyondRetention;
    final boolean delayedImpression;

    private PendingRecord(long eventTime, long originalSeq, String requestId, String adId, Payload payload,
            BeyondRetentionCopies beyondRetention, boolean delayedImpression) {
        this.eventTime = eventTime;
        this.originalSeq = originalSeq;
        this.requestId = requestId;
        this.adId = adId;
        this.payload = payload;
        this.beyondRetention = beyondRetention;
        this.delayedImpression = delayedImpression;
    }

    /** @param beyondRetention for a copy beyond the retention, the others of its impression; null for a copy within it */
    static PendingRecord copy(long eventTime, long originalSeq, String requestId, String adId, Payload payload,
            BeyondRetentionCopies beyondRetention) {
        return new PendingRecord(eventTime, originalSeq, requestId, adId, payload, beyondRetention, false);
    }

    static PendingRecord delayedImpression(long eventTime, String requestId, String adId) {
        return new PendingRecord(eventTime, -1, requestId, adId, null, null, true);
    }
}
