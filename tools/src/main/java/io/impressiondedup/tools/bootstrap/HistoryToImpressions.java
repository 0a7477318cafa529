package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.HashMixing;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Turns the rows or records of a history into {@link HistoryImpression}s, as the job's source and key
 * selector would (shard of the request-id digest, hashes of the ad id), counting bad ones and, with a
 * {@link HistoryHorizon}, skipping and counting those whose bucket is already dropped at {@code --as-of}.
 */
abstract class HistoryToImpressions<IN> extends RichFlatMapFunction<IN, HistoryImpression> {

    private static final long serialVersionUID = 1L;

    private final int shards;
    /** {@code null} in the first pass, which only looks for the newest timestamp. */
    private final HistoryHorizon horizon;

    private transient LongCounter rows;
    private transient LongCounter bad;
    private transient LongCounter expired;
    private transient ListAccumulator<String> badSamples;
    private transient int sampled;

    HistoryToImpressions(int shards, HistoryHorizon horizon) {
        this.shards = shards;
        this.horizon = horizon;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        rows = getRuntimeContext().getLongCounter(BootstrapAccount.ROWS);
        bad = getRuntimeContext().getLongCounter(BootstrapAccount.BAD);
        expired = getRuntimeContext().getLongCounter(BootstrapAccount.EXPIRED);
        badSamples = new ListAccumulator<>();
        getRuntimeContext().addAccumulator(BootstrapAccount.BAD_SAMPLES, badSamples);
        sampled = 0;
    }

    /**
     * An impression of the history, its request id digested and its ad id hashed with the secret's key ({@code
     * keyedAdIdHash}, 0 without a secret) as the job's parser does it.
     */
    protected void emit(long eventTime, long digestHigh, long digestLow, String adId, long keyedAdIdHash,
            Collector<HistoryImpression> out) {
        rows.add(1L);
        if (horizon != null && horizon.expired(eventTime)) {
            expired.add(1L);
            return;
        }
        out.collect(new HistoryImpression(FingerprintScheme.shardOf(digestHigh, shards), eventTime, digestHigh, digestLow,
                HashMixing.adIdHash(adId), keyedAdIdHash));
    }

    /** A row that is no impression, {@code why} naming where it is. */
    protected void bad(String why) {
        rows.add(1L);
        bad.add(1L);
        if (sampled++ < BootstrapAccount.MAX_BAD_SAMPLES) {
            badSamples.add(why);
        }
    }
}
