package io.impressiondedup.testdata.generate;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.TimeUtils.formatWithHighestUnit;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Knobs of the {@link ImpressionGenerator}; built and validated by {@link #builder()}. All shares are
 * fractions of all records generated, except where said otherwise.
 */
public final class GeneratorSettings {

    /**
     * How far inside the allowed lateness delayed impressions stay: the job's watermark trails the
     * stream by its out-of-orderness (5 min), records are stamped up to the jitter behind the clock, and
     * a delayed impression's re-sent copies come up to 30 minutes after it.
     */
    public static final Duration DELAY_MARGIN = Duration.ofHours(1);

    final long seed;
    final long count;
    final double duplicateShare;
    final double beyondRetentionShare;
    final int maxAdsPerRequest;
    final int adCatalog;
    final double adZipfExponent;
    final double timeBasedUuidShare;
    final double nonUuidShare;
    final double isoTimestampShare;
    final Duration maxJitter;
    final Instant start;
    final Duration span;
    final double lateShare;
    final double malformedShare;
    final double futureShare;
    final Duration bucketSize;
    final Duration retention;
    final int oversizedBytes;
    final Duration allowedLateness;
    final double delayedShare;
    final Duration delayMin;
    final Duration delayMax;
    final ValueFormat format;
    /** With {@link ValueFormat#AVRO}: the schema registry id each value is prefixed with, or null for no prefix. */
    final Integer avroSchemaId;

    private GeneratorSettings(Builder b) {
        seed = b.seed;
        count = b.count;
        duplicateShare = b.duplicateShare;
        beyondRetentionShare = b.beyondRetentionShare;
        maxAdsPerRequest = b.maxAdsPerRequest;
        adCatalog = b.adCatalog;
        adZipfExponent = b.adZipfExponent;
        timeBasedUuidShare = b.timeBasedUuidShare;
        nonUuidShare = b.nonUuidShare;
        isoTimestampShare = b.isoTimestampShare;
        maxJitter = b.maxJitter;
        start = b.start;
        span = b.span;
        lateShare = b.lateShare;
        malformedShare = b.malformedShare;
        futureShare = b.futureShare;
        bucketSize = b.bucketSize;
        retention = b.retention;
        oversizedBytes = b.oversizedBytes;
        allowedLateness = b.allowedLateness;
        delayedShare = b.delayedShare;
        delayMin = b.delayMin;
        delayMax = b.delayMax;
        format = b.format;
        avroSchemaId = b.avroSchemaId;
    }

    public static Builder builder() {
        return new Builder();
    }

    public long count() {
        return count;
    }

    public long seed() {
        return seed;
    }

    public Instant start() {
        return start;
    }

    public Duration span() {
        return span;
    }

    public Duration retention() {
        return retention;
    }

    public Duration bucketSize() {
        return bucketSize;
    }

    public Duration allowedLateness() {
        return allowedLateness;
    }

    public double delayedShare() {
        return delayedShare;
    }

    public ValueFormat format() {
        return format;
    }

    /** The schema registry id an Avro value is prefixed with (the 5-byte wire prefix), or null for none. */
    public Integer avroSchemaId() {
        return avroSchemaId;
    }

    /** The schema of {@link ValueFormat#AVRO} values: the text of the resource {@code impression.avsc}. */
    public static String avroSchemaText() {
        return AvroImpressionEncoding.schemaText();
    }

    /** Builder of {@link GeneratorSettings}. */
    public static final class Builder {
        private long seed = 1;
        private long count = 100_000;
        private double duplicateShare = 0.20;
        private double beyondRetentionShare = 0.02;
        private int maxAdsPerRequest = 3;
        private int adCatalog = 5_000;
        private double adZipfExponent = 1.1;
        private double timeBasedUuidShare = 0.30;
        private double nonUuidShare = 0.05;
        private double isoTimestampShare = 0.05;
        private Duration maxJitter = Duration.ofSeconds(30);
        private Instant start;
        private Duration span = Duration.ofDays(4);
        private double lateShare = 0.002;
        private double malformedShare = 0.003;
        private double futureShare = 0.001;
        private Duration bucketSize = TimeBuckets.DEFAULT_BUCKET_SIZE;
        private Duration retention = TimeBuckets.DEFAULT_RETENTION;
        private int oversizedBytes = 100 * 1024;
        private Duration allowedLateness = TimeBuckets.DEFAULT_ALLOWED_LATENESS;
        private double delayedShare = 0;
        private Duration delayMin = Duration.ofHours(1);
        private Duration delayMax = Duration.ofHours(20);
        private ValueFormat format = ValueFormat.JSON;
        private Integer avroSchemaId;

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder count(long count) {
            this.count = count;
            return this;
        }

        /** Share of records that are copies of an earlier impression (within and beyond retention). */
        public Builder duplicateShare(double share) {
            this.duplicateShare = share;
            return this;
        }

        /** Share of copies stamped beyond retention + one bucket (expected to pass as new). */
        public Builder beyondRetentionShare(double share) {
            this.beyondRetentionShare = share;
            return this;
        }

        public Builder maxAdsPerRequest(int max) {
            this.maxAdsPerRequest = max;
            return this;
        }

        public Builder adCatalog(int ads) {
            this.adCatalog = ads;
            return this;
        }

        public Builder adZipfExponent(double exponent) {
            this.adZipfExponent = exponent;
            return this;
        }

        public Builder timeBasedUuidShare(double share) {
            this.timeBasedUuidShare = share;
            return this;
        }

        public Builder nonUuidShare(double share) {
            this.nonUuidShare = share;
            return this;
        }

        public Builder isoTimestampShare(double share) {
            this.isoTimestampShare = share;
            return this;
        }

        /** Records are stamped up to this far behind the stream's clock: out-of-order arrival. */
        public Builder maxJitter(Duration jitter) {
            this.maxJitter = jitter;
            return this;
        }

        /** Event time of the first record; default: now minus the span, so the stream ends now. */
        public Builder start(Instant start) {
            this.start = start;
            return this;
        }

        /** Event time the stream covers. */
        public Builder span(Duration span) {
            this.span = span;
            return this;
        }

        public Builder lateShare(double share) {
            this.lateShare = share;
            return this;
        }

        public Builder malformedShare(double share) {
            this.malformedShare = share;
            return this;
        }

        public Builder futureShare(double share) {
            this.futureShare = share;
            return this;
        }

        /** Must match the job's bucket size, so "late" and "beyond retention" mean what the job does. */
        public Builder bucketSize(Duration bucketSize) {
            this.bucketSize = bucketSize;
            return this;
        }

        /** Must match the job's retention. */
        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        /** Size of the oversized records' values; must exceed the job's maximum record size. */
        public Builder oversizedBytes(int bytes) {
            this.oversizedBytes = bytes;
            return this;
        }

        /** Must match the job's allowed lateness: late records are stamped far enough behind it, delays stay inside it. */
        public Builder allowedLateness(Duration allowedLateness) {
            this.allowedLateness = allowedLateness;
            return this;
        }

        /**
         * Share of requests from delayed clients (mobile, offline): their impressions keep their event
         * time but are written a delay in [{@link #delayMin}, {@link #delayMax}] later into the stream.
         * 0 (the default) draws nothing for the profile: the stream is then a function of the other settings alone.
         */
        public Builder delayedShare(double share) {
            this.delayedShare = share;
            return this;
        }

        public Builder delayMin(Duration delay) {
            this.delayMin = delay;
            return this;
        }

        /** At most the allowed lateness minus {@link #DELAY_MARGIN}, so delayed impressions and their re-sent copies are surely in time. */
        public Builder delayMax(Duration delay) {
            this.delayMax = delay;
            return this;
        }

        /**
         * How values are written: JSON (the default) or Avro. The same seed gives the same records (identities,
         * times, classes, ground truth) in either format; only the bytes of the values differ.
         */
        public Builder format(ValueFormat format) {
            this.format = format;
            return this;
        }

        /** With {@link ValueFormat#AVRO}: prefix each value with the schema registry's wire prefix carrying this id (null: none). */
        public Builder avroSchemaId(Integer schemaId) {
            this.avroSchemaId = schemaId;
            return this;
        }

        /** Validates the settings; a message names the setting's {@code test-data generate} option where it has one. */
        public GeneratorSettings build() {
            Objects.requireNonNull(bucketSize, "bucketSize");
            Objects.requireNonNull(allowedLateness, "allowedLateness");
            Objects.requireNonNull(delayMin, "delayMin");
            Objects.requireNonNull(delayMax, "delayMax");
            Objects.requireNonNull(format, "format");
            checkArgument(avroSchemaId == null || format == ValueFormat.AVRO,
                    "--avro-wire-prefix confluent (schema id %s) needs --format avro, but the format is %s", avroSchemaId, format);
            checkArgument(avroSchemaId == null || avroSchemaId >= 0, "--avro-schema-id must not be negative, but was %s", avroSchemaId);
            checkArgument(count > 0, "--count must be positive, but was %s", count);
            checkShare("--duplicate-share", duplicateShare, 0.9);
            checkShare("--beyond-retention-share", beyondRetentionShare, 1);
            checkShare("time-based UUID share", timeBasedUuidShare, 1);
            checkShare("non-UUID share", nonUuidShare, 1);
            checkArgument(timeBasedUuidShare + nonUuidShare <= 1, "time-based and non-UUID shares exceed 1");
            checkShare("ISO timestamp share", isoTimestampShare, 1);
            checkShare("--late-share", lateShare, 0.5);
            checkShare("--malformed-share", malformedShare, 0.5);
            checkShare("--future-share", futureShare, 0.5);
            checkArgument(duplicateShare + lateShare + malformedShare + futureShare < 1,
                    "--duplicate-share, --late-share, --malformed-share and --future-share leave no room for unique impressions");
            checkArgument(maxAdsPerRequest >= 1, "--max-ads-per-request must be at least 1, but was %s", maxAdsPerRequest);
            checkArgument(adCatalog >= maxAdsPerRequest, "the ad catalog (%s) must hold at least --max-ads-per-request", adCatalog);
            checkArgument(adZipfExponent > 0, "Zipf exponent must be positive, but was %s", adZipfExponent);
            checkArgument(!span.isNegative() && !span.isZero(), "--span must be positive, but was %s", formatWithHighestUnit(span));
            checkArgument(!maxJitter.isNegative() && maxJitter.compareTo(Duration.ofMinutes(4)) <= 0,
                    "--max-jitter must be in [0, 4min] to stay inside the job's default 5 min out-of-orderness, but was %s",
                    formatWithHighestUnit(maxJitter));
            checkArgument(!retention.isNegative() && !retention.isZero(), "--retention must be positive, but was %s",
                    formatWithHighestUnit(retention));
            checkArgument(TimeBuckets.isBucketSize(bucketSize),
                    "--bucket-size must be at least 1min and divide a day (e.g. 1h, 6h) or be whole days, as the job's, but was %s",
                    formatWithHighestUnit(bucketSize));
            checkArgument(oversizedBytes >= 1024, "oversized values must be at least 1 KiB");
            checkArgument(!allowedLateness.isNegative(), "--allowed-lateness must not be negative, but was %s", allowedLateness);
            checkShare("--delayed-share", delayedShare, 0.5);
            checkArgument(!delayMin.isNegative(), "--delay-min must not be negative, but was %s", delayMin);
            checkArgument(delayMin.compareTo(delayMax) <= 0, "--delay-min (%s) must not exceed --delay-max (%s)",
                    formatWithHighestUnit(delayMin), formatWithHighestUnit(delayMax));
            if (delayedShare > 0) {
                checkArgument(delayMax.compareTo(allowedLateness.minus(DELAY_MARGIN)) <= 0,
                        "--delay-max (%s) must be at most --allowed-lateness (%s) minus %s, the margin for out-of-orderness,"
                                + " jitter and re-sent copies, so that delayed impressions are surely in time",
                        formatWithHighestUnit(delayMax), formatWithHighestUnit(allowedLateness), formatWithHighestUnit(DELAY_MARGIN));
            }
            if (start == null) {
                start = Instant.ofEpochMilli(System.currentTimeMillis()).minus(span);
            }
            return new GeneratorSettings(this);
        }

        private static void checkShare(String name, double share, double max) {
            checkArgument(share >= 0 && share <= max, "%s must be in [0, %s], but was %s", name, max, share);
        }
    }
}
