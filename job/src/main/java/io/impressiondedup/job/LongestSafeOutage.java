package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.util.TimeUtils;

/**
 * How long the job may be down (from a failure to the restored job committing) without losing
 * output or deduplication state, as its settings decide; logged once where the topology is built
 * and exported as the gauge {@value #METRIC} (milliseconds) of the {@link RouteParsedRecords}
 * operator, so that an alert can compare it with a running outage.
 *
 * <p>Exactly once, the output of a checkpoint is written in a Kafka transaction that is committed
 * when the checkpoint completes. If the job fails after the checkpoint completed and before the
 * commit, the restored job commits it (the transaction is in the checkpoint); but the brokers abort
 * a transaction once it is older than the transaction timeout (counted from its first record, which
 * was written up to one checkpoint interval before the checkpoint), and an aborted transaction's
 * records are lost: the source offsets restored with the checkpoint are past them. So the outage may
 * last at most {@code --transaction-timeout} minus {@code --checkpoint-interval}, minus the time the
 * checkpoint itself took. The safety TTL ({@code --state-ttl}) bounds it too: an outage longer than it
 * drops dedup state at restore, and copies of those impressions pass as new. At least once, only the
 * TTL applies; with the TTL disabled too, the job's settings set no bound ({@link #millis()} is
 * {@link Long#MAX_VALUE}; the input topic's retention still does).
 */
public final class LongestSafeOutage implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The gauge's name, in the {@link RouteParsedRecords} operator's metric group. */
    public static final String METRIC = "longestSafeOutageMs";

    private final long millis;
    private final String reason;

    private LongestSafeOutage(long millis, String reason) {
        this.millis = millis;
        this.reason = reason;
    }

    public static LongestSafeOutage of(DedupJobConfig config) {
        long bound = Long.MAX_VALUE;
        String reason = "no bound from the job's settings (at-least-once, --" + DedupJobOptions.STATE_TTL.key() + " 0); the input"
                + " topic's retention still bounds it";
        if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE) {
            bound = config.transactionTimeout().minus(config.checkpointInterval()).toMillis();
            reason = "--" + DedupJobOptions.TRANSACTION_TIMEOUT.key() + " " + format(config.transactionTimeout()) + " minus --"
                    + DedupJobOptions.CHECKPOINT_INTERVAL.key() + " " + format(config.checkpointInterval()) + ", minus the time a"
                    + " checkpoint takes. A job down longer loses the output of its last checkpoint: its Kafka transaction is"
                    + " committed only after the restart, and the brokers abort it once it is older than --"
                    + DedupJobOptions.TRANSACTION_TIMEOUT.key() + ". For longer outages raise --" + DedupJobOptions.TRANSACTION_TIMEOUT.key()
                    + ", up to the brokers' transaction.max.timeout.ms";
        }
        Duration ttl = config.dedupSettings().stateTtl();
        if (!ttl.isZero() && ttl.toMillis() < bound) {
            bound = ttl.toMillis();
            reason = "--" + DedupJobOptions.STATE_TTL.key() + ": a job down longer drops, at restore, the dedup state of buckets"
                    + " created more than " + format(ttl) + " before, and copies of those impressions pass as new";
        }
        return new LongestSafeOutage(bound, reason);
    }

    /** The bound in milliseconds; {@link Long#MAX_VALUE} if the job's settings set none. */
    public long millis() {
        return millis;
    }

    /** The one line logged at start. */
    public String logLine() {
        String bound = millis == Long.MAX_VALUE ? "unbounded" : format(Duration.ofMillis(millis));
        return "Longest safe outage: " + bound + " (" + reason + "). Metric: " + METRIC + ".";
    }

    /** {@code 14 min 30 s}, {@code 11 d}: the largest units first, zero parts left out. */
    static String format(Duration duration) {
        if (duration.isZero() || duration.isNegative()) {
            return TimeUtils.formatWithHighestUnit(duration);
        }
        StringBuilder text = new StringBuilder();
        append(text, duration.toDaysPart(), "d");
        append(text, duration.toHoursPart(), "h");
        append(text, duration.toMinutesPart(), "min");
        append(text, duration.toSecondsPart(), "s");
        append(text, duration.toMillisPart(), "ms");
        return text.toString();
    }

    private static void append(StringBuilder text, long amount, String unit) {
        if (amount != 0) {
            text.append(text.length() == 0 ? "" : " ").append(amount).append(' ').append(unit);
        }
    }
}
