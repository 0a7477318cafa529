package io.impressiondedup.testdata.write;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.TestDataHeaders;

/**
 * Produces generated records to a topic: key = the request id (so a request's copies share a
 * partition, as they would from a real ad server), value as generated, and the sequence number in
 * the {@link TestDataHeaders#SEQ} header. Idempotent producer with acks=all and one request in
 * flight, so a retry neither creates a duplicate the ground truth does not know about nor reorders.
 */
public final class KafkaTopicDestination implements RecordDestination {

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private boolean transactionsInitialized;

    public KafkaTopicDestination(String bootstrapServers, String topic, Map<String, String> clientProperties) {
        this.topic = topic;
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // One request in flight: a retry (a fresh partition answers NOT_LEADER_OR_FOLLOWER at first) then
        // cannot race later batches; with five, the 4.2 client can desynchronize its sequence numbers
        // with the broker and fail every batch until the delivery timeout.
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        properties.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * 1024 * 1024));
        properties.putAll(clientProperties);
        this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public void write(GeneratedRecord record) throws IOException {
        send(record, null);
    }

    /**
     * Writes the record to {@code partition} instead of the one its key hashes to: for streams shaped
     * per partition, such as one partition that falls idle while the others go on.
     */
    public void write(GeneratedRecord record, int partition) throws IOException {
        send(record, partition);
    }

    /** Writes the record with one more header, {@code headerKey}: {@code headerValue}, after the sequence number's. */
    public void write(GeneratedRecord record, String headerKey, byte[] headerValue) throws IOException {
        send(record, null, new RecordHeader(headerKey, headerValue));
    }

    private void send(GeneratedRecord record, Integer partition, RecordHeader... extra) throws IOException {
        throwIfFailed();
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader(TestDataHeaders.SEQ, Long.toString(record.seq).getBytes(StandardCharsets.US_ASCII)));
        for (RecordHeader header : extra) {
            headers.add(header);
        }
        producer.send(new ProducerRecord<>(topic, partition, null, record.key, record.value, headers), (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
        });
    }

    /**
     * Starts a transaction (the producer must have been given a {@code transactional.id}): what is written until
     * {@link #commitTransaction} is in the log, within the end offsets a bounded job finds, but invisible to a
     * read_committed consumer, which stops before it. Tests use it to hold a job part-way through its input.
     */
    public void beginTransaction() {
        if (!transactionsInitialized) {
            producer.initTransactions();
            transactionsInitialized = true;
        }
        producer.beginTransaction();
    }

    /** Commits the transaction {@link #beginTransaction} started, after every record in it was sent. */
    public void commitTransaction() throws IOException {
        flush();
        producer.commitTransaction();
    }

    @Override
    public void flush() throws IOException {
        producer.flush();
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        Exception e = failure.get();
        if (e != null) {
            throw new IOException("Producing to " + topic + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "topic " + topic;
    }

    @Override
    public void close() throws IOException {
        try {
            flush();
        } finally {
            producer.close();
        }
    }
}
