package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupStage;
import io.impressiondedup.operators.model.Impression;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Forwards records and watermarks but the final one. A bounded source ends with the watermark
 * {@code Long.MAX_VALUE} ("end of time"), which fires every event-time timer: this job's bucket
 * expiry would clear all of its filters before the last checkpoint, while the alternatives,
 * which expire on processing time, keep theirs, and the checkpoint would then not show the state
 * a running job holds. Put in front of every variant's dedup step alike, it makes the final
 * checkpoint show the state after the whole input, as in a stream that goes on.
 */
final class EndOfInputWatermarkHold extends AbstractStreamOperator<Impression> implements OneInputStreamOperator<Impression, Impression> {

    private static final long serialVersionUID = 1L;

    /** {@code stage}, with the final watermark held back from it. */
    static DedupStage before(DedupStage stage) {
        return (impressions, config) -> stage.attach(
                impressions.transform("Hold end-of-input watermark", Impression.TYPE_INFO, new EndOfInputWatermarkHold())
                        .uid("hold-end-of-input-watermark"),
                config);
    }

    @Override
    public void processElement(StreamRecord<Impression> element) {
        output.collect(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() != Watermark.MAX_WATERMARK.getTimestamp()) {
            super.processWatermark(mark);
        }
    }
}
