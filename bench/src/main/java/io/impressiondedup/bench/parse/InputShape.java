package io.impressiondedup.bench.parse;

import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.ImpressionParser;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.ImpressionGenerator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The input formats the parse benchmarks compare, on the same generator records (seed 3): each one a layout of
 * the records and the settings that read it. The clock of every parser is fixed past every event time, so no
 * record is refused as future.
 */
public enum InputShape {

    /** Today's layout: one flat object, read by top-level names (the fast path). */
    FLAT {
        @Override
        ParserSettings settings() {
            return new ParserSettings("requestId", "adId", "ts", 1 << 20, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }
    },
    /**
     * The same impressions nested, {@code {"imp":{"requestId":..,"adId":..,"ts":..,"campaignId":..,"placementId":..},
     * "site":{"publisherId":..,...}}}, read by the pointers {@code /imp/requestId}, {@code /imp/adId}, {@code /imp/ts}
     * (Jackson, walking into "imp" and skipping "site").
     */
    NESTED {
        @Override
        ParserSettings settings() {
            return new ParserSettings("/imp/requestId", "/imp/adId", "/imp/ts", 1 << 20, Duration.ofHours(1),
                    ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }

        @Override
        byte[] layout(byte[] flat) {
            String json = new String(flat, StandardCharsets.UTF_8);
            int site = json.indexOf(",\"publisherId\":");
            if (!json.startsWith("{\"requestId\":") || site < 0 || !json.endsWith("}")) {
                return flat; // a malformed record: a dead letter either way
            }
            return ("{\"imp\":" + json.substring(0, site) + "},\"site\":{" + json.substring(site + 1, json.length() - 1) + "}}")
                    .getBytes(StandardCharsets.UTF_8);
        }
    },
    /** The flat layout with a three-field key, {@code --dedup-key requestId;adId;placementId} (the fast path, four names). */
    FLAT_THREE_FIELD_KEY {
        @Override
        ParserSettings settings() {
            return new ParserSettings(List.of(FieldPath.parse("requestId"), FieldPath.parse("adId"), FieldPath.parse("placementId")),
                    FieldPath.parse("ts"), 1 << 20, Duration.ofHours(1), ParserSettings.DEFAULT_MIN_EVENT_TIME);
        }
    };

    abstract ParserSettings settings();

    /** The record {@code flat} (the generator's layout) in this shape's layout. */
    byte[] layout(byte[] flat) {
        return flat;
    }

    /** A parser of this shape. */
    public ImpressionParser parser() {
        return new ImpressionParser(settings(), () -> Long.MAX_VALUE / 2);
    }

    /** {@code count} generator records (seed 3) in this shape's layout. */
    public RawKafkaRecord[] records(int count) {
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(count).seed(3).build());
        List<RawKafkaRecord> raw = new ArrayList<>();
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            raw.add(RawKafkaRecord.ofValue("impressions", 0, raw.size(), record.value == null ? null : layout(record.value)));
        }
        return raw.toArray(new RawKafkaRecord[0]);
    }
}
