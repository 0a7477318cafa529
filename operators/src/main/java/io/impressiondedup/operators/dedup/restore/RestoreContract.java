package io.impressiondedup.operators.dedup.restore;

import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What dedup state records about how it was written, in the operator's union-list state ({@link DedupStateLayout}
 * names the entries), and what a restore must match: the one class that reads, checks and rewrites those entries,
 * for the operator ({@link #restore}, {@link #snapshot}) and for the state tools that write savepoints without it
 * ({@link #write}). Which state version holds which entry: docs/COMPATIBILITY.md.
 *
 * <p><b>Shard count.</b> All keyed state is keyed by shard, and shards map one-to-one onto key groups ({@link
 * ShardKeys}), so Flink's rescaling moves whole filters with their key groups. The count itself cannot change without
 * breaking the request-to-filter mapping: a restore with another count fails naming it ({@link ShardCountCheck}).
 *
 * <p><b>Fingerprint secret.</b> The source may key request-id digests with a secret ({@code FingerprintSecret}); the
 * operator never sees it, only its check value ({@link RestoreRules#fingerprintCheck()}): a restore with another
 * secret, a secret onto state written without one, or none onto state written with one fails naming {@code
 * --fingerprint-secret-file} ({@link FingerprintCheck}). State v1 has no check value and counts as written without a
 * secret.
 *
 * <p><b>Dedup key.</b> The identity rule's description ({@link RestoreRules#dedupKey()}): a restore under another
 * key fails naming {@code --dedup-key} unless {@code --allow-dedup-key-change} ({@link DedupKeyCheck}); state without
 * one is accepted.
 *
 * <p><b>Lateness.</b> A record is late ({@link TimeBuckets#isLate}: more than the allowed lateness behind) against the
 * higher of Flink's watermark and the watermark the operator had reached at its last checkpoint, kept here: after a
 * restore Flink's watermark starts from nothing while the buckets expired before the failure stay gone, and a record
 * whose copy was in one of them must not pass as new. The restore takes the highest subtask's. {@link
 * RestoreRules#resetLatenessWatermark()} ignores it, to recover from a watermark bad data pushed too far. (Before the
 * first watermark of a fresh start nothing is late, and nothing can be missed: no bucket has been dropped yet.)
 *
 * <p><b>Time options</b> (bucket size, zone, retention, allowed lateness) are kept with the event time before which
 * records are late whatever the watermark ({@link TimeBuckets} rule 7), and checked on restore by {@link
 * TimeOptionsCheck}. A lateness watermark of the end of time (state v1-v3 drained by {@code stop --drain} or the end of
 * a bounded input, every bucket expired) is refused unless {@code --reset-lateness-watermark}.
 */
public final class RestoreContract {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreContract.class);

    private final TimeBuckets buckets;
    private final ListState<Long> watermarkState;
    private final ListState<Long> lateBeforeState;
    private final ListState<Integer> journaledShardsState;
    private final long restoredWatermark;
    private final long restoredLateBefore;

    private RestoreContract(TimeBuckets buckets, ListState<Long> watermarkState, ListState<Long> lateBeforeState,
            ListState<Integer> journaledShardsState, long restoredWatermark, long restoredLateBefore) {
        this.buckets = buckets;
        this.watermarkState = watermarkState;
        this.lateBeforeState = lateBeforeState;
        this.journaledShardsState = journaledShardsState;
        this.restoredWatermark = restoredWatermark;
        this.restoredLateBefore = restoredLateBefore;
    }

    /**
     * The operator's side, in {@code initializeState}: checks what restored state recorded ({@code restored}: the
     * operator runs from a checkpoint or savepoint) against this run, failing with a message that names the option, and
     * records this run's values in their place.
     */
    public static RestoreContract restore(OperatorStateStore store, boolean restored, RestoreRules settings, DedupPlan plan,
            TimeBuckets buckets) throws Exception {
        ListState<Integer> shardCount = store.getUnionListState(DedupStateLayout.shardCount());
        if (restored) {
            ShardCountCheck.verify(shardCount.get(), plan.shards());
        }
        shardCount.update(List.of(plan.shards()));

        ListState<Long> fingerprintCheck = store.getUnionListState(DedupStateLayout.fingerprintCheck());
        if (restored) {
            FingerprintCheck.verify(fingerprintCheck.get(), settings.fingerprintCheck());
        }
        fingerprintCheck.update(List.of(settings.fingerprintCheck()));

        ListState<String> dedupKey = store.getUnionListState(DedupStateLayout.dedupKey());
        if (restored) {
            DedupKeyCheck.verify(dedupKey.get(), settings.dedupKey(), settings.allowDedupKeyChange());
        }
        dedupKey.update(List.of(settings.dedupKey()));

        ListState<Long> watermarkState = store.getUnionListState(DedupStateLayout.latenessWatermark());
        long watermark = Long.MIN_VALUE;
        for (Long subtaskWatermark : watermarkState.get()) {
            watermark = Math.max(watermark, subtaskWatermark);
        }

        ListState<String> timeOptions = store.getUnionListState(DedupStateLayout.timeOptions());
        if (restored) {
            TimeOptionsCheck.verify(timeOptions.get(), buckets, settings.allowRetentionIncrease());
            if (watermark == Long.MAX_VALUE && !settings.resetLatenessWatermark()) {
                throw new IllegalStateException("The dedup state's lateness watermark is the end of time: it was saved after"
                        + " stop --drain (or the end of a bounded input) by a job of state v3 or earlier, which expired every"
                        + " bucket there. Every record would be late and no copy of an earlier impression would be found. Start"
                        + " without state, or run with --reset-lateness-watermark true to use it anyway (copies of the"
                        + " impressions it held pass once).");
            }
        }
        timeOptions.update(List.of(buckets.description()));
        ListState<Long> lateBeforeState = store.getUnionListState(DedupStateLayout.lateBefore());
        long lateBefore = TimeOptionsCheck.restoredLateBefore(lateBeforeState.get(), buckets, watermark);

        if (settings.resetLatenessWatermark() && watermark != Long.MIN_VALUE) {
            LOG.warn("Ignoring the restored lateness watermark {} (--reset-lateness-watermark): lateness is judged by this"
                    + " run's watermark only. Copies of impressions in buckets already dropped can pass as new.",
                    Instant.ofEpochMilli(watermark));
            watermark = Long.MIN_VALUE;
            lateBefore = Long.MIN_VALUE;
        }
        return new RestoreContract(buckets, watermarkState, lateBeforeState, store.getUnionListState(DedupStateLayout.journaledShards()),
                watermark, lateBefore);
    }

    /** The highest lateness watermark the restored subtasks recorded, or {@code Long.MIN_VALUE}. */
    public long restoredWatermark() {
        return restoredWatermark;
    }

    /** The event time before which records are late whatever the watermark ({@link TimeBuckets} rule 7), or {@code Long.MIN_VALUE}. */
    public long restoredLateBefore() {
        return restoredLateBefore;
    }

    /**
     * At each snapshot: the lateness watermark the operator has reached, what follows from it, and the shards whose page
     * journal the snapshot holds (0 at a savepoint).
     */
    public void snapshot(long latenessWatermark, int journaledShards) throws Exception {
        watermarkState.update(List.of(latenessWatermark));
        lateBeforeState.update(List.of(buckets.lateBefore(latenessWatermark, restoredLateBefore)));
        journaledShardsState.update(List.of(journaledShards));
    }

    /**
     * The state tools' side: records the entries of state written without the job, every subtask alike. An entry given
     * as {@code null} is not written, and the job that restores the state then accepts it as state of a version without
     * that entry.
     *
     * @param fingerprintCheck the check value of the secret the state is written with ({@code 0} for none, as the job
     *     writes it)
     * @param latenessWatermark the restored job then judges lateness by its own watermark only
     * @param dedupKey the restored job accepts the state under any key and records its own
     * @param timeOptions {@code TimeBuckets#description()}; with {@code lateBefore}: the restored job takes the state as
     *     written under its own options
     */
    public static void write(OperatorStateStore store, int shards, Long fingerprintCheck, Long latenessWatermark, String dedupKey,
            String timeOptions, Long lateBefore) throws Exception {
        store.getUnionListState(DedupStateLayout.shardCount()).update(List.of(shards));
        if (fingerprintCheck != null) {
            store.getUnionListState(DedupStateLayout.fingerprintCheck()).update(List.of(fingerprintCheck));
        }
        if (latenessWatermark != null) {
            store.getUnionListState(DedupStateLayout.latenessWatermark()).update(List.of(latenessWatermark));
        }
        if (dedupKey != null) {
            store.getUnionListState(DedupStateLayout.dedupKey()).update(List.of(dedupKey));
        }
        if (timeOptions != null) {
            store.getUnionListState(DedupStateLayout.timeOptions()).update(List.of(timeOptions));
        }
        if (lateBefore != null) {
            store.getUnionListState(DedupStateLayout.lateBefore()).update(List.of(lateBefore));
        }
    }
}
