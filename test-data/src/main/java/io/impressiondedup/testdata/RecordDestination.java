package io.impressiondedup.testdata;

import java.io.IOException;

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
