package io.impressiondedup.bench.e2e;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the job's output as a downstream reader would ({@code read_committed}: a record is visible
 * once the checkpoint that wrote it has committed its transaction) and keeps, per record, its Kafka
 * timestamp (the input record's, which the output keeps: the send time the {@link PacedProducer}
 * stamped) and its latency, the wall-clock time of the poll that returned it minus that timestamp.
 * Producer, broker, job and this reader share one machine and one clock.
 *
 * <p>{@code fetch.max.wait.ms} is 50: a fetch the broker parks for want of data returns within 50 ms,
 * which bounds what this reader adds to the latency it reports.
 */
final class VisibleLatency implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Object lock = new Object();
    private long[] timestamps = new long[1 << 16];
    private long[] latencies = new long[1 << 16];
    private int count;
    private volatile long lastRecordNanos;
    private volatile long firstRecordMs = -1;
    private volatile boolean stopping;

    VisibleLatency(String bootstrapServers, String topic) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(this::pollUntilClosed, "visible-latency-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void pollUntilClosed() {
        try {
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                long polledMs = System.currentTimeMillis();
                if (records.isEmpty()) {
                    continue;
                }
                synchronized (lock) {
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        add(record.timestamp(), polledMs - record.timestamp());
                    }
                }
                if (firstRecordMs < 0) {
                    firstRecordMs = polledMs;
                }
                lastRecordNanos = System.nanoTime();
            }
        } catch (WakeupException e) {
            // close() asked us to stop.
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private void add(long timestamp, long latency) {
        if (count == timestamps.length) {
            timestamps = Arrays.copyOf(timestamps, count * 2);
            latencies = Arrays.copyOf(latencies, count * 2);
        }
        timestamps[count] = timestamp;
        latencies[count] = latency;
        count++;
    }

    /** Records read so far. */
    long records() {
        synchronized (lock) {
            return count;
        }
    }

    /** Wall-clock ms of the first poll that returned records, or -1. */
    long firstRecordMs() {
        return firstRecordMs;
    }

    /** Waits until no record has arrived for {@code quiet} (at most {@code limit}); returns whether it went quiet. */
    boolean awaitQuiet(Duration quiet, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        lastRecordNanos = Math.max(lastRecordNanos, System.nanoTime());
        while (System.nanoTime() < deadline) {
            throwIfFailed();
            if (System.nanoTime() - lastRecordNanos >= quiet.toNanos()) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** The latencies, sorted, of the records stamped in [{@code fromMs}, {@code toMs}]. */
    long[] latenciesStampedBetween(long fromMs, long toMs) {
        synchronized (lock) {
            long[] selected = new long[count];
            int n = 0;
            for (int i = 0; i < count; i++) {
                if (timestamps[i] >= fromMs && timestamps[i] <= toMs) {
                    selected[n++] = latencies[i];
                }
            }
            long[] sorted = Arrays.copyOf(selected, n);
            Arrays.sort(sorted);
            return sorted;
        }
    }

    private void throwIfFailed() {
        if (failure.get() != null) {
            throw new IllegalStateException("Reading the output failed", failure.get());
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        consumer.wakeup();
        thread.join(30_000);
        consumer.close(Duration.ofSeconds(10));
    }
}
