package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.state.identity.FingerprintSecretFile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * Turns the field options ({@code --dedup-key}, or {@code --request-id-field} and {@code --ad-id-field}; {@code
 * --timestamp-field}) and the record limits into {@link ParserSettings} (with the input format: {@link
 * InputFormatOptions}), for the job and the {@code bootstrap} tool alike. Fails naming the options: a {@code
 * --dedup-key} given with an explicit request or ad id field (one of them would be ignored), and fields that overlap
 * (the same twice, or one inside another: no record could hold both).
 */
public final class ParserOptions {

    private ParserOptions() {}

    /** The parser's settings of {@code options}, with the fingerprint secret's file ({@code null}: none). */
    public static ParserSettings parserSettings(Configuration options, FingerprintSecretFile secret) {
        FieldPath timestamp = fieldPath(TIMESTAMP_FIELD, options.get(TIMESTAMP_FIELD));
        List<FieldPath> key = new ArrayList<>();
        List<String> keyOptions = new ArrayList<>();
        Optional<List<String>> configuredKey = options.getOptional(DEDUP_KEY);
        if (configuredKey.isPresent()) {
            for (ConfigOption<String> field : List.of(REQUEST_ID_FIELD, AD_ID_FIELD)) {
                if (options.contains(field)) {
                    throw new InvalidOptionException("--" + DEDUP_KEY.key() + " and --" + field.key() + " exclude each other: --"
                            + DEDUP_KEY.key() + " replaces the (request id, ad id) identity, so give that field in --" + DEDUP_KEY.key()
                            + " (its first field is digested and shards the state)");
                }
            }
            for (String text : configuredKey.get()) {
                key.add(fieldPath(DEDUP_KEY, text));
                keyOptions.add("--" + DEDUP_KEY.key());
            }
        } else {
            key.add(fieldPath(REQUEST_ID_FIELD, options.get(REQUEST_ID_FIELD)));
            keyOptions.add("--" + REQUEST_ID_FIELD.key());
            key.add(fieldPath(AD_ID_FIELD, options.get(AD_ID_FIELD)));
            keyOptions.add("--" + AD_ID_FIELD.key());
        }
        for (int i = 0; i < key.size(); i++) {
            for (int j = i + 1; j < key.size(); j++) {
                if (key.get(i).overlaps(key.get(j))) {
                    throw new InvalidOptionException(overlap(keyOptions.get(i), key.get(i), keyOptions.get(j), key.get(j)));
                }
            }
            if (key.get(i).overlaps(timestamp)) {
                throw new InvalidOptionException(overlap(keyOptions.get(i), key.get(i), "--" + TIMESTAMP_FIELD.key(), timestamp));
            }
        }
        ParserSettings settings = configuredKey.isPresent()
                ? new ParserSettings(key, timestamp, options.get(MAX_RECORD_BYTES), options.get(MAX_FUTURE_SKEW),
                        Instant.parse(options.get(MIN_EVENT_TIME)))
                : new ParserSettings(options.get(REQUEST_ID_FIELD), options.get(AD_ID_FIELD), options.get(TIMESTAMP_FIELD),
                        options.get(MAX_RECORD_BYTES), options.get(MAX_FUTURE_SKEW), Instant.parse(options.get(MIN_EVENT_TIME)));
        return InputFormatOptions.apply(options, settings.withFingerprintSecret(secret), keyOptions); // --input-format, Avro options
    }

    private static FieldPath fieldPath(ConfigOption<?> option, String text) {
        try {
            return FieldPath.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid value '" + text + "' for --" + option.key() + ": " + e.getMessage(), e);
        }
    }

    private static String overlap(String option, FieldPath field, String otherOption, FieldPath other) {
        String where = option.equals(otherOption) ? option : option + " and " + otherOption;
        return "Invalid " + where + ": the fields '" + field + "' and '" + other + "' overlap (" + (field.equals(other)
                ? "the same field twice" : "one inside the other: no record can hold both") + ")";
    }
}
