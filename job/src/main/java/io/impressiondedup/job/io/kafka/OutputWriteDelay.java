package io.impressiondedup.job.io.kafka;

import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The histogram {@value #METRIC}: for each impression a sink writes, the milliseconds from its Kafka
 * timestamp (the input record's, which the output keeps) to the moment the sink hands it to its
 * producer.
 *
 * <p>What it includes: the record's time in the input topic before the source read it (so a backlog
 * or a slow source shows here), the source, parsing, the shuffle by shard, the dedup operator and the
 * queue in front of the sink; clock skew between the producer that stamped the record and the
 * TaskManager too (a stamp from a clock ahead of ours gives a small or negative delay). What it does
 * not include: the wait for the checkpoint that commits the sink's transaction, which with
 * exactly-once delivery is when a {@code read_committed} consumer first sees the record. That wait is
 * up to one checkpoint interval plus the checkpoint's own duration and the commit, so the latency a
 * reader sees is at most this delay + {@code --checkpoint-interval} + checkpoint and commit time.
 *
 * <p>Records without a timestamp (Kafka's -1, or a timestamp a record cannot carry) are not counted:
 * they have no origin to measure from. The histogram keeps the last {@value #WINDOW} samples (Flink's
 * {@link DescriptiveStatisticsHistogram}, a ring buffer: updating it costs an array store; a reporter
 * reading it sorts a copy), so its quantiles describe roughly the last seconds of traffic of this
 * subtask, not the job's lifetime.
 */
public final class OutputWriteDelay {

    public static final String METRIC = "output-write-delay-ms";
    /**
     * Samples the histogram keeps: a second or two of one subtask at tens of thousands of records per second. Not more:
     * the ring buffer is a {@code double[]}, and each read of the histogram (Flink's metric fetcher and reporters,
     * every few seconds) copies it twice; at 100,000 samples those were 800 KB arrays, humongous objects on a
     * TaskManager's default heap (512 MB, 1 MiB G1 regions: 512 KiB and more), each of which can start a concurrent
     * marking of the whole heap ({@code ConsumerDefaults} has the figures). 50,000 samples are 400 KB.
     */
    static final int WINDOW = 50_000;

    private final Histogram histogram;

    private OutputWriteDelay(Histogram histogram) {
        this.histogram = histogram;
    }

    /** Registers the histogram in {@code group} (a sink writer's metric group). */
    static OutputWriteDelay register(MetricGroup group) {
        return new OutputWriteDelay(group.histogram(METRIC, new DescriptiveStatisticsHistogram(WINDOW)));
    }

    /** Records the delay of a record stamped {@code timestampMs} and written at {@code nowMs}; a negative stamp (none) is skipped. */
    void record(long timestampMs, long nowMs) {
        if (timestampMs >= 0) {
            histogram.update(nowMs - timestampMs);
        }
    }
}
