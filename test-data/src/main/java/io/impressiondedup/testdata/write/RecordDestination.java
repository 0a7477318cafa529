package io.impressiondedup.testdata.write;

import java.io.IOException;
import io.impressiondedup.testdata.GeneratedRecord;

/** Where generated records go: a JSONL file or a Kafka topic. */
public interface RecordDestination extends AutoCloseable {

    void write(GeneratedRecord record) throws IOException;

    /** Blocks until everything written is durable (flushed to disk, acknowledged by Kafka). */
    void flush() throws IOException;

    /** Where the records went, for messages. */
    String describe();

    @Override
    void close() throws IOException;
}
