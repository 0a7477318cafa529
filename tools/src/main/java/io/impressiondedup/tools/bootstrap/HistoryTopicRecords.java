package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import org.apache.flink.util.Collector;

/**
 * The records of a history topic, parsed by the job's own deserializer ({@code ImpressionDeserializationSchema}):
 * an impression is what the job would have deduplicated, digest included; a record it would dead-letter is a bad
 * row, reported with its topic, partition and offset.
 */
final class HistoryTopicRecords extends HistoryToImpressions<ParsedRecord> {

    private static final long serialVersionUID = 1L;

    HistoryTopicRecords(int shards, HistoryHorizon horizon) {
        super(shards, horizon);
    }

    @Override
    public void flatMap(ParsedRecord record, Collector<HistoryImpression> out) {
        if (record.isImpression()) {
            Impression impression = record.impression();
            emit(impression.eventTime(), impression.digestHigh(), impression.digestLow(), impression.adId(), impression.keyedAdIdHash(), out);
            return;
        }
        DeadLetter letter = record.deadLetter();
        bad(letter.raw().topic() + "/" + letter.raw().partition() + "@" + letter.raw().offset() + ": " + letter.reason() + ": "
                + letter.error());
    }
}
