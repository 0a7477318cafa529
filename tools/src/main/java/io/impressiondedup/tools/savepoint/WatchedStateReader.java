package io.impressiondedup.tools.savepoint;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Runs a state reader and reports what it throws (opening, reading a key, closing) to its run's {@link
 * StateFunctionReports}, so that the tool fails with it even when Flink names another failure as the job's cause
 * (see there); everything else is the reader's, unchanged.
 */
final class WatchedStateReader<OUT> extends KeyedStateReaderFunction<Integer, OUT> {

    private static final long serialVersionUID = 1L;

    private final KeyedStateReaderFunction<Integer, OUT> reader;
    /** The run to report to ({@code ToolEnvironment#runOf}); {@code null}: an environment no tool watches. */
    private final String run;

    WatchedStateReader(KeyedStateReaderFunction<Integer, OUT> reader, String run) {
        this.reader = reader;
        this.run = run;
    }

    @Override
    public void setRuntimeContext(RuntimeContext context) {
        super.setRuntimeContext(context);
        reader.setRuntimeContext(context); // the states it registers are the keys read
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        try {
            reader.open(openContext);
        } catch (Exception | Error e) {
            report(e);
            throw e;
        }
    }

    @Override
    public void readKey(Integer key, Context context, Collector<OUT> out) throws Exception {
        try {
            reader.readKey(key, context, out);
        } catch (Exception | Error e) {
            report(e);
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            reader.close();
        } catch (Exception | Error e) {
            report(e);
            throw e;
        }
    }

    private void report(Throwable cause) {
        StateFunctionReports.failed(run, StateFunctionFailure.threw("reading", getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(), cause));
    }
}
