package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.model.Impression;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The exact deduplication a Flink user would write instead of ours, for comparison: key by (request
 * id, ad id), remember each key in a {@code ValueState<Boolean>} with a TTL of the retention. Every
 * unique impression costs a state entry holding its full key.
 */
public final class ExactDedupFunction extends KeyedProcessFunction<String, Impression, Impression> {

    private static final long serialVersionUID = 1L;

    private final Duration retention;
    private transient ValueState<Boolean> seen;

    public ExactDedupFunction(Duration retention) {
        this.retention = retention;
    }

    /** Keys by request id and ad id, as the idiom does. */
    public static KeySelector<Impression, String> keySelector() {
        return impression -> impression.requestId() + '|' + impression.adId();
    }

    @Override
    public void open(OpenContext context) {
        ValueStateDescriptor<Boolean> descriptor = new ValueStateDescriptor<>("seen", BooleanSerializer.INSTANCE);
        descriptor.enableTimeToLive(StateTtlConfig.newBuilder(retention).updateTtlOnCreateAndWrite().neverReturnExpired().build());
        seen = getRuntimeContext().getState(descriptor);
    }

    @Override
    public void processElement(Impression impression, Context context, Collector<Impression> out) throws Exception {
        if (seen.value() == null) {
            seen.update(true);
            out.collect(impression);
        }
    }
}
