package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;
import java.util.List;
import java.util.function.LongSupplier;
import io.impressiondedup.job.io.eventtime.EventTimeRules;

/**
 * The format-independent tail of reading a record: a format's reader ({@link JsonImpressionParser} for JSON)
 * finds the key fields' texts and the event time and checks their types; this class turns them into an
 * {@link Impression} or a {@link DeadLetter}, the same way for every format:
 *
 * <ol>
 *   <li>a missing key field, in key order, then a missing event time: malformed, {@code missing field '<path>'};
 *   <li>an event time more than {@code --max-future-skew} ahead of processing time: future-timestamp (such a
 *       record would drag the watermark ahead and make every real record after it late);
 *   <li>otherwise the impression: the first key field digested (keyed by the secret), the rest of the key
 *       by {@link DedupKey#rest}, and with a secret that rest hashed with its key ({@link FingerprintSecret#keyedAdIdHash}).
 * </ol>
 *
 * Also the dead letters every format words alike: {@link #oversized} (checked before parsing), {@link #malformed}.
 * One instance per reader (it reuses its digester); not thread-safe.
 */
public final class ImpressionAssembler {

    private final ParserSettings settings;
    private final LongSupplier clock;
    private final RequestIdDigester digester;
    /** Null without {@code --fingerprint-secret-file}; with it, keys the ad-id hash too. */
    private final FingerprintSecret secret;
    private final List<FieldPath> keyFields;

    public ImpressionAssembler(ParserSettings settings, LongSupplier clock) {
        this.settings = settings;
        this.clock = clock;
        // The secret is read here, where the reader opens on the TaskManager: the job graph holds only its file's path.
        this.secret = settings.fingerprintSecretFile() == null ? null : settings.fingerprintSecretFile().read();
        this.digester = new RequestIdDigester(secret);
        this.keyFields = settings.keyFields();
    }

    /**
     * The impression of {@code raw}, or its dead letter. {@code keyValues[i]} is the text of key field i
     * ({@link ParserSettings#keyFields()}), or null if the record lacks it; a present value must already be a
     * valid key value (see {@link DedupKey}: a non-empty string of valid Unicode, or an integer's text). The
     * array is not kept. {@code eventTime} counts only if {@code hasEventTime}, and must have passed
     * {@link EventTimeRules}.
     */
    public ParsedRecord assemble(RawKafkaRecord raw, String[] keyValues, boolean hasEventTime, long eventTime) {
        for (int i = 0; i < keyValues.length; i++) {
            if (keyValues[i] == null) {
                return malformed(raw, "missing field '" + keyFields.get(i) + "'");
            }
        }
        if (!hasEventTime) {
            return malformed(raw, "missing field '" + settings.timestampField() + "'");
        }
        long now = clock.getAsLong();
        if (eventTime > TimeBuckets.saturatedAdd(now, settings.maxFutureSkewMillis())) {
            return dead(raw, DeadLetterReason.FUTURE_TIMESTAMP, "event time " + Instant.ofEpochMilli(eventTime)
                    + " is more than --max-future-skew " + settings.maxFutureSkewMillis() / 1000 + "s ahead of processing time "
                    + Instant.ofEpochMilli(now));
        }
        digester.digest(keyValues[0]);
        String adId = DedupKey.rest(keyValues);
        long keyedAdIdHash = secret == null ? 0L : secret.keyedAdIdHash(adId);
        return ParsedRecord.of(new Impression(keyValues[0], adId, eventTime, digester.high(), digester.low(), keyedAdIdHash, raw));
    }

    /** The oversized dead letter of {@code raw} if key + value + headers exceed {@code --max-record-bytes}, else null. */
    public ParsedRecord oversized(RawKafkaRecord raw) {
        if (raw.payloadSize() > settings.maxRecordBytes()) {
            return dead(raw, DeadLetterReason.OVERSIZED, "record of " + raw.payloadSize() + " bytes exceeds --max-record-bytes "
                    + settings.maxRecordBytes());
        }
        return null;
    }

    /** A malformed dead letter saying {@code error} (cut to {@value DeadLetter#MAX_ERROR_LENGTH} characters). */
    public static ParsedRecord malformed(RawKafkaRecord raw, String error) {
        return dead(raw, DeadLetterReason.MALFORMED, error);
    }

    /** A dead letter of {@code reason} saying {@code error} (cut to {@value DeadLetter#MAX_ERROR_LENGTH} characters). */
    public static ParsedRecord dead(RawKafkaRecord raw, DeadLetterReason reason, String error) {
        return ParsedRecord.of(new DeadLetter(raw, reason, DeadLetter.abbreviated(error)));
    }
}
