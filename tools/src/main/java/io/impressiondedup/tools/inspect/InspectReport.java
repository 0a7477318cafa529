package io.impressiondedup.tools.inspect;

import io.impressiondedup.state.StateFormat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.impressiondedup.state.FilterStatistics;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import io.impressiondedup.tools.savepoint.DedupSavepoint;

/**
 * What {@code inspect} prints: the savepoint's facts, the job-wide figures of {@link FilterStatistics} (the
 * same function the operator's gauges use, summed over all shards as over all subtasks), a summary per
 * bucket (what Redis's {@code BF.INFO} gives for one filter, here over the bucket's shard filters), the
 * figures per shard and bucket, and query verdicts; as readable tables or one JSON document.
 */
final class InspectReport {

    /**
     * One bucket over all shards. Means are over all shards of the state: a shard without this bucket's filter counts 0.
     * {@code formats}: its shard filters by state format; a bucket's shards can differ, since each shard creates its filter
     * of a bucket in the format selected when its first impression came (a restore with the other format in between).
     * The Bloom figures (layers, bits, bytes at full size) are over its Bloom shard filters, the fingerprint figures
     * (parts, bands, overflow) over its fingerprint ones; a format it does not hold shows "-".
     */
    record BucketSummary(long bucket, int filters, SortedMap<String, Integer> formats, long inserted, long capacity,
            double maxFillRatio, double meanEstimatedFpp, double maxEstimatedFpp, double meanFillFpp, double maxFillFpp, long storedBytes,
            int maxLayers, int expandedFilters, long bitsSet, long bitsTotal, long bytes, int maxParts, int maxBand, long overflowed) {

        double fillRatio() {
            return (double) inserted / capacity;
        }

        double bitFill() {
            return (double) bitsSet / bitsTotal;
        }

        boolean holdsBloom() {
            return formats.containsKey(StateFormat.BLOOM.optionValue());
        }

        boolean holdsFingerprints() {
            return formats.containsKey(StateFormat.FINGERPRINTS.optionValue());
        }
    }

    private final String savepoint;
    private final DedupSavepoint.Facts facts;
    private final TimeBuckets buckets;
    private final FilterStatistics totals;
    /** Statistics mode: the figures of every shard filter, by bucket then shard; {@code null} in query mode. */
    private final List<BucketFigures> figures;
    private final boolean perShard;
    /** Query mode: the verdicts in query order; {@code null} in statistics mode. */
    private final List<QueryVerdict> verdicts;

    InspectReport(String savepoint, DedupSavepoint.Facts facts, TimeBuckets buckets, FilterStatistics totals,
            List<BucketFigures> figures, boolean perShard, List<QueryVerdict> verdicts) {
        this.savepoint = savepoint;
        this.facts = facts;
        this.buckets = buckets;
        this.totals = totals;
        this.figures = figures == null ? null : sorted(figures);
        this.perShard = perShard;
        this.verdicts = verdicts;
    }

    private static List<BucketFigures> sorted(List<BucketFigures> figures) {
        List<BucketFigures> copy = new ArrayList<>(figures);
        copy.sort(Comparator.comparingLong((BucketFigures f) -> f.bucket).thenComparingInt(f -> f.shard));
        return copy;
    }

    List<BucketSummary> bucketSummaries() {
        TreeMap<Long, List<BucketFigures>> byBucket = new TreeMap<>();
        for (BucketFigures f : figures) {
            byBucket.computeIfAbsent(f.bucket, b -> new ArrayList<>()).add(f);
        }
        List<BucketSummary> summaries = new ArrayList<>();
        byBucket.forEach((bucket, list) -> {
            long inserted = 0, capacity = 0, bitsSet = 0, bitsTotal = 0, bytes = 0, stored = 0, overflowed = 0;
            double maxFill = 0, sumFpp = 0, maxFpp = 0, sumFillFpp = 0, maxFillFpp = 0;
            int maxLayers = 0, expanded = 0, maxParts = 0, maxBand = 0;
            SortedMap<String, Integer> formats = new TreeMap<>();
            for (BucketFigures f : list) {
                formats.merge(f.format, 1, Integer::sum);
                inserted += f.inserted;
                capacity += f.capacity;
                stored += f.storedBytes;
                maxFill = Math.max(maxFill, f.fillRatio());
                sumFpp += f.estimatedFpp;
                maxFpp = Math.max(maxFpp, f.estimatedFpp);
                sumFillFpp += f.fillFpp;
                maxFillFpp = Math.max(maxFillFpp, f.fillFpp);
                if (f.fingerprintFormat()) {
                    maxParts = Math.max(maxParts, f.parts);
                    maxBand = Math.max(maxBand, f.maxBand);
                    expanded += f.maxBand > 0 ? 1 : 0;
                    overflowed += f.overflowed;
                } else {
                    bitsSet += f.bitsSet;
                    bitsTotal += f.bitsTotal;
                    bytes += f.bytes;
                    maxLayers = Math.max(maxLayers, f.layers);
                    expanded += f.layers > 1 ? 1 : 0;
                }
            }
            summaries.add(new BucketSummary(bucket, list.size(), formats, inserted, capacity, maxFill, sumFpp / facts.shards(), maxFpp,
                    sumFillFpp / facts.shards(), maxFillFpp, stored, maxLayers, expanded, bitsSet, bitsTotal, bytes, maxParts, maxBand,
                    overflowed));
        });
        return summaries;
    }

    /** "bloom 120, fingerprints 8": the shard filters of a bucket by format, for the text table. */
    private static String formatsText(SortedMap<String, Integer> formats) {
        StringBuilder text = new StringBuilder();
        formats.forEach((format, count) -> text.append(text.length() == 0 ? "" : ", ").append(format).append(' ').append(count));
        return text.toString();
    }

    /** A figure of one format, or "-" where the bucket or shard holds no filter of it. */
    private static String either(boolean applies, long value) {
        return applies ? Long.toString(value) : "-";
    }

    private String start(long bucket) {
        return Instant.ofEpochMilli(buckets.startOf(bucket)).toString();
    }

    private String secret() {
        long check = facts.fingerprintCheck() == null ? FingerprintSecret.NO_SECRET : facts.fingerprintCheck();
        return check == FingerprintSecret.NO_SECRET ? "none" : "used (check value " + FingerprintSecret.describeCheckValue(check) + ")";
    }

    private String watermark() {
        return facts.latenessWatermark() == null || facts.latenessWatermark() == Long.MIN_VALUE
                ? "none (nothing is late)"
                : Instant.ofEpochMilli(facts.latenessWatermark()) + " (" + facts.latenessWatermark() + ")";
    }

    String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("Savepoint ").append(savepoint).append('\n');
        sb.append(String.format(Locale.ROOT, "Shards %d, max parallelism %d, fingerprint secret %s, lateness watermark %s, dedup key %s%n",
                facts.shards(), facts.maxParallelism(), secret(), watermark(),
                facts.dedupKey() == null ? "not recorded (accepted under any key)" : facts.dedupKey()));
        sb.append(String.format(Locale.ROOT, "Time buckets %s, retention %s, allowed lateness %s, zone %s (%s)%n",
                buckets.bucketSize(), buckets.retention(), buckets.allowedLateness(), buckets.zone(),
                facts.timeOptions() == null ? "not recorded in the savepoint: as given, or the defaults" : "recorded in the savepoint"));
        if (facts.lateBefore() != null) {
            sb.append(String.format(Locale.ROOT, "Late whatever the watermark: event times before %s%n", java.time.Instant.ofEpochMilli(facts.lateBefore())));
        }
        sb.append(String.format(Locale.ROOT, "Job-wide (the gauges at this checkpoint, over all subtasks): live shard-buckets %d,"
                        + " bloom bytes %,d, max fill ratio %.4f, worst-shard estimated FPP %.6g%n",
                totals.liveBuckets(), totals.bloomBytes(), totals.maxFillRatio(), totals.worstShardEstimatedFpp()));
        if (figures != null) {
            sb.append("\nPer bucket (over its shard filters; FPP mean over all ").append(facts.shards()).append(" shards / worst shard;")
                    .append(" layers to bytes: its Bloom filters, parts to overflowed: its fingerprint buckets):\n");
            sb.append(String.format(Locale.ROOT, "%-8s %-24s %6s %-26s %12s %12s %7s %8s %21s %21s %14s %6s %14s %14s %8s %14s %5s %5s %12s%n",
                    "bucket", "start", "shards", "formats", "inserted", "capacity", "fill", "max-fill", "est-fpp mean/max", "fill-fpp mean/max",
                    "stored-bytes", "layers", "bits-set", "bits-total", "bit-fill", "bytes", "parts", "bands", "overflowed"));
            for (BucketSummary s : bucketSummaries()) {
                boolean bloom = s.holdsBloom();
                boolean fingerprints = s.holdsFingerprints();
                sb.append(String.format(Locale.ROOT, "%-8d %-24s %6d %-26s %12d %12d %7.4f %8.4f %10.3g/%-10.3g %10.3g/%-10.3g %14d %6s %14s %14s %8s %14s %5s %5s %12s%n",
                        s.bucket(), start(s.bucket()), s.filters(), formatsText(s.formats()), s.inserted(), s.capacity(), s.fillRatio(),
                        s.maxFillRatio(), s.meanEstimatedFpp(), s.maxEstimatedFpp(), s.meanFillFpp(), s.maxFillFpp(), s.storedBytes(),
                        either(bloom, s.maxLayers()), either(bloom, s.bitsSet()), either(bloom, s.bitsTotal()),
                        bloom ? String.format(Locale.ROOT, "%.4f", s.bitFill()) : "-", either(bloom, s.bytes()),
                        either(fingerprints, s.maxParts()), either(fingerprints, s.maxBand()), either(fingerprints, s.overflowed())));
            }
            if (perShard) {
                sb.append("\nPer shard and bucket:\n");
                sb.append(String.format(Locale.ROOT, "%6s %-8s %-24s %-12s %12s %12s %7s %11s %11s %12s %6s %12s %12s %8s %12s %5s %5s %12s%n",
                        "shard", "bucket", "start", "format", "inserted", "capacity", "fill", "est-fpp", "fill-fpp", "stored-bytes", "layers",
                        "bits-set", "bits-total", "bit-fill", "bytes", "parts", "bands", "overflowed"));
                for (BucketFigures f : figures) {
                    boolean bloom = !f.fingerprintFormat();
                    sb.append(String.format(Locale.ROOT, "%6d %-8d %-24s %-12s %12d %12d %7.4f %11.4g %11.4g %12d %6s %12s %12s %8s %12s %5s %5s %12s%n",
                            f.shard, f.bucket, start(f.bucket), f.format, f.inserted, f.capacity, f.fillRatio(), f.estimatedFpp, f.fillFpp,
                            f.storedBytes, either(bloom, f.layers), either(bloom, f.bitsSet), either(bloom, f.bitsTotal),
                            bloom ? String.format(Locale.ROOT, "%.4f", (double) f.bitsSet / f.bitsTotal) : "-", either(bloom, f.bytes),
                            either(!bloom, f.parts), either(!bloom, f.maxBand), either(!bloom, f.overflowed)));
                }
            }
        }
        if (verdicts != null) {
            sb.append("\nQueries (as the job restored from this savepoint would decide them):\n");
            sb.append(String.format(Locale.ROOT, "%-10s %-24s %-6s %-36s %-24s %s%n", "verdict", "bucket start", "shard", "request id",
                    "event time", "ad id"));
            for (QueryVerdict v : verdicts) {
                sb.append(String.format(Locale.ROOT, "%-10s %-24s %-6d %-36s %-24s %s%n", v.verdict,
                        v.bucket == null ? "-" : start(v.bucket) + " (" + v.bucket + ")", v.shard, v.requestId,
                        Instant.ofEpochMilli(v.eventTime), v.adId));
            }
        }
        return sb.toString();
    }

    String json() {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(text)) {
            json.useDefaultPrettyPrinter();
            json.writeStartObject();
            json.writeStringField("savepoint", savepoint);
            json.writeObjectFieldStart("facts");
            json.writeNumberField("shards", facts.shards());
            json.writeNumberField("maxParallelism", facts.maxParallelism());
            long check = facts.fingerprintCheck() == null ? FingerprintSecret.NO_SECRET : facts.fingerprintCheck();
            json.writeBooleanField("fingerprintSecret", check != FingerprintSecret.NO_SECRET);
            if (check != FingerprintSecret.NO_SECRET) {
                json.writeStringField("fingerprintCheck", FingerprintSecret.describeCheckValue(check));
            }
            if (facts.dedupKey() == null) {
                json.writeNullField("dedupKey");
            } else {
                json.writeStringField("dedupKey", facts.dedupKey());
            }
            if (facts.timeOptions() == null) {
                json.writeNullField("timeOptions");
            } else {
                json.writeStringField("timeOptions", facts.timeOptions());
            }
            if (facts.lateBefore() == null) {
                json.writeNullField("lateBefore");
            } else {
                json.writeNumberField("lateBefore", facts.lateBefore());
            }
            if (facts.latenessWatermark() == null) {
                json.writeNullField("latenessWatermark");
            } else {
                json.writeNumberField("latenessWatermark", facts.latenessWatermark());
            }
            json.writeStringField("bucketSize", buckets.bucketSize().toString());
            json.writeStringField("retention", buckets.retention().toString());
            json.writeStringField("allowedLateness", buckets.allowedLateness().toString());
            json.writeStringField("zone", buckets.zone().toString());
            json.writeEndObject();
            json.writeObjectFieldStart("totals");
            json.writeNumberField("liveBuckets", totals.liveBuckets());
            json.writeNumberField("bloomBytes", totals.bloomBytes());
            json.writeNumberField("maxFillRatio", totals.maxFillRatio());
            json.writeNumberField("estimatedFpp", totals.worstShardEstimatedFpp());
            json.writeEndObject();
            if (figures != null) {
                json.writeArrayFieldStart("buckets");
                for (BucketSummary s : bucketSummaries()) {
                    json.writeStartObject();
                    json.writeNumberField("bucket", s.bucket());
                    json.writeStringField("start", start(s.bucket()));
                    json.writeNumberField("shards", s.filters());
                    json.writeObjectFieldStart("formats");
                    for (Map.Entry<String, Integer> format : s.formats().entrySet()) {
                        json.writeNumberField(format.getKey(), format.getValue());
                    }
                    json.writeEndObject();
                    json.writeNumberField("inserted", s.inserted());
                    json.writeNumberField("capacity", s.capacity());
                    json.writeNumberField("fillRatio", s.fillRatio());
                    json.writeNumberField("maxFillRatio", s.maxFillRatio());
                    json.writeNumberField("expandedShards", s.expandedFilters());
                    json.writeNumberField("meanEstimatedFpp", s.meanEstimatedFpp());
                    json.writeNumberField("maxEstimatedFpp", s.maxEstimatedFpp());
                    json.writeNumberField("meanFillFpp", s.meanFillFpp());
                    json.writeNumberField("maxFillFpp", s.maxFillFpp());
                    json.writeNumberField("storedBytes", s.storedBytes());
                    if (s.holdsBloom()) {
                        json.writeNumberField("maxLayers", s.maxLayers());
                        json.writeNumberField("bitsSet", s.bitsSet());
                        json.writeNumberField("bitsTotal", s.bitsTotal());
                        json.writeNumberField("bytes", s.bytes());
                    }
                    if (s.holdsFingerprints()) {
                        json.writeNumberField("maxParts", s.maxParts());
                        json.writeNumberField("maxBand", s.maxBand());
                        json.writeNumberField("overflowed", s.overflowed());
                    }
                    json.writeEndObject();
                }
                json.writeEndArray();
                if (perShard) {
                    json.writeArrayFieldStart("shards");
                    for (BucketFigures f : figures) {
                        json.writeStartObject();
                        json.writeNumberField("shard", f.shard);
                        json.writeNumberField("bucket", f.bucket);
                        json.writeStringField("start", start(f.bucket));
                        json.writeStringField("format", f.format);
                        json.writeNumberField("inserted", f.inserted);
                        json.writeNumberField("capacity", f.capacity);
                        json.writeNumberField("fillRatio", f.fillRatio());
                        json.writeNumberField("estimatedFpp", f.estimatedFpp);
                        json.writeNumberField("fillFpp", f.fillFpp);
                        json.writeNumberField("storedBytes", f.storedBytes);
                        if (f.fingerprintFormat()) {
                            json.writeNumberField("fingerprints", f.fingerprints);
                            json.writeNumberField("parts", f.parts);
                            json.writeNumberField("maxBand", f.maxBand);
                            json.writeNumberField("overflowed", f.overflowed);
                        } else {
                            json.writeNumberField("layers", f.layers);
                            json.writeNumberField("bitsSet", f.bitsSet);
                            json.writeNumberField("bitsTotal", f.bitsTotal);
                            json.writeNumberField("bytes", f.bytes);
                        }
                        json.writeEndObject();
                    }
                    json.writeEndArray();
                }
            }
            if (verdicts != null) {
                json.writeArrayFieldStart("queries");
                for (QueryVerdict v : verdicts) {
                    json.writeStartObject();
                    json.writeStringField("requestId", v.requestId);
                    json.writeStringField("adId", v.adId);
                    json.writeNumberField("eventTime", v.eventTime);
                    json.writeNumberField("shard", v.shard);
                    json.writeStringField("verdict", v.verdict);
                    if (v.bucket != null) {
                        json.writeNumberField("bucket", v.bucket);
                        json.writeStringField("bucketStart", start(v.bucket));
                    }
                    json.writeEndObject();
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text + "\n";
    }
}
