package io.impressiondedup.state.plan;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.BloomSizing;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import java.util.List;
import java.util.Locale;
import org.apache.flink.util.TimeUtils;

/**
 * What a {@link DedupPlan} costs, in the figures an operator sizes a cluster with: bits per
 * impression, bytes per shard and in total, checkpoint size, MD5-truncation collisions, and the state
 * exact deduplication would need instead.
 *
 * <p>All figures are computed from the plan (no measurement): the Bloom figures exactly, the
 * checkpoint and exact-dedup figures from the per-entry overheads stated next to them. Last, both state formats
 * side by side ({@link #formatsSideBySide()}): the state per impression and the genuine impressions each drops per
 * day below, at and over plan ({@link StateFormatForecast}), at the plan's FPP and, for the fingerprint format, at
 * the FPP that gives it the Bloom format's bytes.
 */
public final class CapacityReport {

    /**
     * Bytes one page entry costs in RocksDB beyond its bits: key group (2) + shard key (4) + page
     * address (8) + RocksDB's internal key trailer (8) + length varints and block index share (~8).
     */
    static final int ROCKSDB_BYTES_PER_PAGE_ENTRY = 30;

    /**
     * Exact dedup, per (request, ad) key in RocksDB: key group (2) + a 36-char request id and a
     * 12-char ad id with length prefixes (~50) + TTL'd Boolean value (1 + 8) + RocksDB overhead (~16).
     */
    static final int EXACT_DEDUP_BYTES_PER_KEY_ROCKSDB = 77;

    private final DedupPlan plan;
    private final BloomGeometry firstLayer;

    public CapacityReport(DedupPlan plan) {
        this.plan = plan;
        this.firstLayer = plan.firstLayerGeometry();
    }

    /**
     * The forecasts {@link #formatsSideBySide()} prints: Bloom at the plan's FPP, fingerprints at the plan's FPP, and
     * fingerprints at {@link StateFormatForecast#fingerprintFppAtBloomBytes}.
     */
    public List<StateFormatForecast> formatForecasts() {
        return List.of(new StateFormatForecast(plan, StateFormat.BLOOM), new StateFormatForecast(plan, StateFormat.FINGERPRINTS),
                new StateFormatForecast(plan.withFpp(StateFormatForecast.fingerprintFppAtBloomBytes(plan)), StateFormat.FINGERPRINTS));
    }

    /** Both state formats side by side at {@link StateFormatForecast#REPORTED_FILLS}: the table ending the report. */
    public String formatsSideBySide() {
        StringBuilder sb = new StringBuilder();
        sb.append("State formats side by side (computed; a day's unique impressions spread over it in event-time order;"
                + " every false positive drops a genuine impression):\n");
        sb.append(String.format(Locale.ROOT, "  %-52s", "traffic of the day against --capacity"));
        for (double fill : StateFormatForecast.REPORTED_FILLS) {
            sb.append(String.format(Locale.ROOT, " %12s", Math.round(fill * 100) + "%"));
        }
        sb.append('\n');
        List<StateFormatForecast> forecasts = formatForecasts();
        for (int i = 0; i < forecasts.size(); i++) {
            StateFormatForecast forecast = forecasts.get(i);
            sb.append(String.format(Locale.ROOT, "  --state-format %s --fpp %s%s%s%n", forecast.format().optionValue(),
                    i == 2 ? String.format(Locale.ROOT, "%.3g", forecast.plan().fpp()) : String.valueOf(forecast.plan().fpp()),
                    i == 2 ? " (the Bloom format's bytes at plan)" : "",
                    i < 2 && forecast.format() == plan.stateFormat() ? " (this plan)" : ""));
            sb.append(String.format(Locale.ROOT, "    %-50s", "state per live impression, bytes"));
            for (double fill : StateFormatForecast.REPORTED_FILLS) {
                double bytes = forecast.bytesPerImpression(fill);
                sb.append(String.format(Locale.ROOT, " %12s", Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.2f", bytes)));
            }
            sb.append('\n');
            sb.append(String.format(Locale.ROOT, "    %-50s", "genuine impressions dropped per day"));
            for (double fill : StateFormatForecast.REPORTED_FILLS) {
                sb.append(String.format(Locale.ROOT, " %,12.0f", forecast.droppedPerDay(fill)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    public BloomGeometry firstLayer() {
        return firstLayer;
    }

    /** Bloom bits per unique impression in one bucket (layer 0, at plan, with the shard-spread margin). */
    public double bitsPerImpression() {
        return (double) firstLayer.bits() / plan.expectedPerShard();
    }

    /** Classic-formula bits per impression at the end-to-end FPP, for comparison. */
    public double classicBitsPerImpression() {
        return BloomSizing.classicBits(plan.expectedPerShard(), plan.fpp()) / plan.expectedPerShard();
    }

    public long bytesPerShardBucket() {
        return firstLayer.bytes();
    }

    public long bytesPerShard() {
        return plan.plannedBytesPerShard();
    }

    /** The most Bloom state one shard may hold ({@code --shard-state-cap}). */
    public long shardStateCapBytes() {
        return plan.shardStateCapBytes();
    }

    /**
     * How far over plan each of {@code buckets} buckets of one shard may run and keep the FPP under the
     * shard state cap: {@code 2^L - 1}, the capacity of L layers, for the most layers L whose growth
     * layers (1 .. L-1) in all {@code buckets} buckets fit the shard's growth allowance. 1 if none fits.
     */
    public long overPlanWithinCap(int buckets) {
        long allowance = plan.shardGrowthAllowanceBytes();
        long growth = 0;
        int layers = 1;
        while (layers < ScalableBloomFilter.MAX_LAYERS) {
            long next;
            try {
                next = ScalableBloomFilter.layerGeometry(plan.capacityPerShard(), plan.bucketFpp(), plan.blocksPerPage(), layers).bytes();
            } catch (IllegalArgumentException e) {
                break; // a layer this large cannot be addressed: growth stops here anyway
            }
            if ((double) (growth + next) * buckets > allowance) {
                break;
            }
            growth += next;
            layers++;
        }
        return (1L << layers) - 1;
    }

    public long totalBytes() {
        return bytesPerShard() * plan.shards();
    }

    /** A full checkpoint: every page of every live bucket, with its RocksDB key overhead. */
    public long fullCheckpointBytes() {
        long pagesPerShard = (long) firstLayer.numPages() * plan.liveBuckets();
        return totalBytes() + pagesPerShard * plan.shards() * ROCKSDB_BYTES_PER_PAGE_ENTRY;
    }

    /** Expected colliding request-id pairs per bucket from truncation: n^2 / 2^(b+1). */
    public double truncationCollisionsPerBucket() {
        double n = plan.capacityPerBucket();
        return n * n / Math.pow(2, plan.fingerprintScheme().keyBits() + 1);
    }

    /**
     * Exact dedup state for the same retention, at {@link #EXACT_DEDUP_BYTES_PER_KEY_ROCKSDB}: a TTL of
     * the retention keeps one retention's worth of keys (and ours is counted at its maximum of live
     * buckets, so the ratio is the conservative one).
     */
    public long exactDedupBytes() {
        double bucketsOfKeys = (double) plan.timeBuckets().retention().toMillis() / plan.timeBuckets().bucketSize().toMillis();
        return (long) (plan.capacityPerBucket() * bucketsOfKeys * EXACT_DEDUP_BYTES_PER_KEY_ROCKSDB);
    }

    public String render() {
        StringBuilder sb = new StringBuilder();
        line(sb, "Plan", "%,d unique impressions per %s bucket, end-to-end FPP %s, retention %s, %d shards, %d key bits",
                plan.capacityPerBucket(), TimeUtils.formatWithHighestUnit(plan.timeBuckets().bucketSize()), plan.fpp(),
                TimeUtils.formatWithHighestUnit(plan.timeBuckets().retention()),
                plan.shards(), plan.fingerprintScheme().keyBits());
        line(sb, "Buckets checked per record", "%d (per-bucket FPP %.3g, layer-0 FPP %.3g)",
                plan.bucketsChecked(), plan.bucketFpp(), plan.bucketFpp() / 2);
        line(sb, "Filter per shard and bucket", "%,d bits = %,d blocks of 512, k = %d probes, %,d pages of %d B",
                firstLayer.bits(), firstLayer.numBlocks(), firstLayer.probes(), firstLayer.numPages(), plan.pageBytes());
        line(sb, "Bits per impression", "%.2f (classic formula at the end-to-end FPP: %.2f)",
                bitsPerImpression(), classicBitsPerImpression());
        line(sb, "Live buckets held", "%d at most (%d most of the day; one more around bucket boundaries)",
                plan.liveBuckets(), plan.liveBuckets() - 1);
        int withoutLateness = DedupPlan.liveBuckets(plan.timeBuckets().withAllowedLateness(java.time.Duration.ZERO));
        line(sb, "Allowed lateness", "%s: costs %d more live bucket(s), %s (+%.0f%% state); records up to %s behind"
                        + " the watermark are deduplicated instead of set aside as late",
                TimeUtils.formatWithHighestUnit(plan.timeBuckets().allowedLateness()), plan.liveBuckets() - withoutLateness,
                bytes(bytesPerShardBucket() * (plan.liveBuckets() - withoutLateness) * plan.shards()),
                100.0 * (plan.liveBuckets() - withoutLateness) / withoutLateness,
                TimeUtils.formatWithHighestUnit(plan.timeBuckets().allowedLateness()));
        line(sb, "State per shard", "%s (%s per bucket)", bytes(bytesPerShard()), bytes(bytesPerShardBucket()));
        line(sb, "State in total", "%s", bytes(totalBytes()));
        line(sb, "Shard state cap", "%s per shard (--shard-state-cap %s x the planned %s): a bucket up to %dx over plan, or the"
                        + " %d buckets held most of the day each up to %dx, keep the FPP; past the cap a shard's filters stop growing"
                        + " and its FPP rises instead of its memory",
                bytes(shardStateCapBytes()), trim(plan.shardStateCap()), bytes(bytesPerShard()), overPlanWithinCap(1),
                plan.liveBuckets() - 1, overPlanWithinCap(plan.liveBuckets() - 1));
        line(sb, "Full checkpoint", "~%s (incremental checkpoints upload the pages changed since the last one)",
                bytes(fullCheckpointBytes()));
        line(sb, "MD5 truncation collisions", "%.3g expected colliding request-id pairs per bucket (n^2 / 2^%d)",
                truncationCollisionsPerBucket(), plan.fingerprintScheme().keyBits() + 1);
        line(sb, "Exact dedup instead", "~%s in RocksDB (%d B per key, estimated) = %.0fx this plan",
                bytes(exactDedupBytes()), EXACT_DEDUP_BYTES_PER_KEY_ROCKSDB, (double) exactDedupBytes() / totalBytes());
        sb.append(formatsSideBySide());
        return sb.toString();
    }

    private static void line(StringBuilder sb, String label, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, "%-30s ", label + ":")).append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    private static String trim(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }

    static String bytes(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, unit == 0 ? "%.0f %s" : "%.2f %s", value, units[unit]);
    }
}
