package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.operators.dedup.restore.RestoreContract;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Writes the dedup operator's state into a new savepoint, keyed by shard key: the keyed state of
 * {@link DedupStateLayout} (subclasses fill {@link #directory}, {@link #pages} and {@link #fingerprintPages} for the current shard)
 * and its operator state ({@link RestoreContract#write}: shard count, fingerprint check value, lateness watermark,
 * dedup key, time options), which every subtask writes alike, as the job's subtasks do.
 *
 * <p>No timers are written: the operator registers each restored bucket's timers itself.
 */
public abstract class DedupStateWriter<IN> extends KeyedStateBootstrapFunction<Integer, IN> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final int shards;
    private final Long fingerprintCheck;
    private final Long latenessWatermark;
    private final String dedupKey;
    private String timeOptions;
    private Long lateBefore;

    /** Makes a shard's key current ({@link ShardStateWriterOperator}); set before {@link #open}. */
    private transient IntConsumer shardKeySelector;

    protected transient ValueState<BucketFilters> directory;
    protected transient MapState<Long, PageGroup> pages;
    protected transient MapState<Long, FingerprintPage> fingerprintPages;

    /**
     * @param fingerprintCheck the check value of the secret the state is written with ({@code 0} for none, as the job
     *     writes it); {@code null} writes none, as state v1 holds
     * @param latenessWatermark {@code null} writes none: the restored job judges lateness by its own watermark only
     * @param dedupKey the dedup key the state is written under; {@code null} writes none (the restored job accepts the
     *     state under any key and records its own)
     */
    protected DedupStateWriter(int shards, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
        this.shards = shards;
        this.fingerprintCheck = fingerprintCheck;
        this.latenessWatermark = latenessWatermark;
        this.dedupKey = dedupKey;
    }

    /**
     * Writes the time options ({@code TimeBuckets#description()}) and the event time before which records are late too; {@code null}
     * writes none (the restored job takes the state as written under its own options).
     */
    void withTimeOptions(String timeOptions, Long lateBefore) {
        this.timeOptions = timeOptions;
        this.lateBefore = lateBefore;
    }

    /**
     * How many of its tool's units {@code element} carries, for the run's progress ({@link
     * StateFunctionReports.Watch#written}): one element by default; a history's rows for {@code bootstrap}, whose
     * elements are batches of them.
     */
    protected long weight(IN element) {
        return 1;
    }

    /** Given by the operator that runs this writer, before {@link #open}: how {@link #selectShardKey} makes a key current. */
    void selectShardKeysWith(IntConsumer shardKeySelector) {
        this.shardKeySelector = shardKeySelector;
    }

    /**
     * Makes {@code shard}'s key the current key of the keyed state, so that a writer may write a shard other than the one
     * of the element it is given: what it kept from earlier elements of that shard.
     */
    protected final void selectShardKey(int shard) {
        shardKeySelector.accept(shard);
    }

    /**
     * The input has ended; the savepoint is taken next. A writer that keeps changes of earlier elements writes them here
     * ({@link #selectShardKey}); none by default.
     */
    protected void endOfInput() throws Exception {}

    @Override
    public void open(OpenContext openContext) throws Exception {
        directory = getRuntimeContext().getState(DedupStateLayout.directory());
        pages = getRuntimeContext().getMapState(DedupStateLayout.pages());
        fingerprintPages = getRuntimeContext().getMapState(DedupStateLayout.fingerprintPages());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        RestoreContract.write(context.getOperatorStateStore(), shards, fingerprintCheck, latenessWatermark, dedupKey, timeOptions,
                lateBefore);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
        // The operator state was set in initializeState and does not change.
    }
}
