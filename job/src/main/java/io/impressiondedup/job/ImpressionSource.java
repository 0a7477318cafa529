package io.impressiondedup.job;

import io.impressiondedup.operators.model.ParsedRecord;
import java.io.Serializable;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Where parsed records come from, with event time and watermarks assigned: Kafka in production. */
@FunctionalInterface
public interface ImpressionSource extends Serializable {

    DataStream<ParsedRecord> create(StreamExecutionEnvironment env);
}
