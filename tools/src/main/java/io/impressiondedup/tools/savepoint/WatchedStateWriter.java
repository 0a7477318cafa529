package io.impressiondedup.tools.savepoint;

import java.util.function.IntConsumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Runs a state writer and reports to its run's {@link StateFunctionReports} when its subtask ends without its state: what
 * the writer threw (restoring, opening, writing an element, snapshotting, closing), or, when it is closed before its
 * subtask took its snapshot, that Flink's code around it failed (a state backend that cannot start, say). Flink drops
 * both (see {@link StateFunctionReports}); and how much it has written, for the run's progress. Everything else is the
 * writer's, unchanged.
 *
 * <p>Closing is the one call Flink makes on every path out of a writer's subtask, failed or not, so a subtask closed
 * before its snapshot is a subtask whose state will not be in the savepoint.
 */
final class WatchedStateWriter<IN> extends KeyedStateBootstrapFunction<Integer, IN> implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    private final DedupStateWriter<IN> writer;
    /** The run to report to ({@code ToolEnvironment#runOf}); {@code null}: an environment no tool watches. */
    private final String run;

    WatchedStateWriter(DedupStateWriter<IN> writer, String run) {
        this.writer = writer;
        this.run = run;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
        super.setRuntimeContext(context);
        writer.setRuntimeContext(context);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        try {
            writer.initializeState(context);
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        try {
            writer.open(openContext);
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
    }

    @Override
    public void processElement(IN element, Context context) throws Exception {
        try {
            writer.processElement(element, context);
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
        StateFunctionReports.wrote(run, writer.weight(element));
    }

    /** The writer's {@link DedupStateWriter#selectShardKeysWith}. */
    void selectShardKeysWith(IntConsumer shardKeySelector) {
        writer.selectShardKeysWith(shardKeySelector);
    }

    /** The writer's {@link DedupStateWriter#endOfInput}, reported as writing if it fails. */
    void endOfInput() throws Exception {
        try {
            writer.endOfInput();
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        try {
            writer.snapshotState(context);
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
        StateFunctionReports.snapshotTaken(run, subtask());
    }

    @Override
    public void close() throws Exception {
        try {
            writer.close();
        } catch (Exception | Error e) {
            StateFunctionReports.failed(run, StateFunctionFailure.threw("writing", subtask(), subtasks(), e));
            throw e;
        }
        StateFunctionReports.writerClosed(run, subtask(), subtasks());
    }

    private int subtask() {
        return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    }

    private int subtasks() {
        return getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    }
}
