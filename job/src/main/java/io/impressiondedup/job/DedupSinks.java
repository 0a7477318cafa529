package io.impressiondedup.job;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import org.apache.flink.streaming.api.datastream.DataStream;

/** Where the job's three results go: Kafka topics in production. */
public interface DedupSinks {

    /**
     * @param unique the first impression of each (request, ad)
     * @param deadLetters malformed, oversized, far-future and late records
     * @param duplicates dropped duplicates, or {@code null} unless an audit topic is configured
     */
    void attach(DataStream<Impression> unique, DataStream<DeadLetter> deadLetters, DataStream<Impression> duplicates);
}
