package io.impressiondedup.bench.e2e;

import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes generated impressions to a topic at a fixed rate, each stamped with its send time as its
 * Kafka timestamp: the origin the latency benchmark measures from. Pacing is by schedule, not by
 * sleep per record: every millisecond it sends what the schedule owes (rate x elapsed), so a stall
 * is caught up at once and shows as {@code maxBehindMs}, and the achieved rate is reported, not
 * assumed.
 */
final class PacedProducer {

    /**
     * {@code uniqueAfter}: the records sent at or after the {@code countFrom} instant that open an
     * identity group, i.e. that must appear in the output (the measured window's expected count).
     */
    record Result(long sent, double seconds, long maxBehindMs, long unique, long uniqueAfter, long sendFailures) {
        double achievedRate() {
            return sent / seconds;
        }
    }

    private PacedProducer() {}

    /**
     * Sends {@code rate} records/s for {@code duration} to {@code topic}; the event times are the
     * generator's (spanning {@link Workload#SPAN} up to now), so nothing expires in the run.
     *
     * @param countFromMs wall-clock ms from which unique impressions sent are counted in {@link Result#uniqueAfter}
     */
    static Result produce(String bootstrapServers, String topic, long rate, Duration duration, long seed, long countFromMs)
            throws Exception {
        long total = rate * duration.toSeconds();
        ImpressionGenerator generator = new ImpressionGenerator(
                GeneratorSettings.builder().count(total).seed(seed).span(Workload.SPAN).build());
        AtomicReference<Exception> failure = new AtomicReference<>();
        AtomicLong failures = new AtomicLong();
        long sent = 0;
        long unique = 0;
        long uniqueAfter = 0;
        long maxBehindNanos = 0;
        long start;
        long end;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties(bootstrapServers), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            start = System.nanoTime();
            while (sent < total) {
                long elapsed = System.nanoTime() - start;
                long owed = Math.min(total, elapsed * rate / 1_000_000_000L + 1);
                if (owed - sent > 1) {
                    // Nanoseconds behind the schedule at the oldest record still owed.
                    maxBehindNanos = Math.max(maxBehindNanos, elapsed - sent * 1_000_000_000L / rate);
                }
                for (; sent < owed; sent++) {
                    GeneratedRecord record = generator.next();
                    long now = System.currentTimeMillis();
                    if (record.recordClass.opensGroup()) {
                        unique++;
                        if (now >= countFromMs) {
                            uniqueAfter++;
                        }
                    }
                    producer.send(new ProducerRecord<>(topic, null, now, record.key, record.value), (metadata, e) -> {
                        if (e != null) {
                            failures.incrementAndGet();
                            failure.compareAndSet(null, e);
                        }
                    });
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            end = System.nanoTime();
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException(failures.get() + " records could not be sent to " + topic, failure.get());
        }
        return new Result(sent, (end - start) / 1e9, TimeUnit.NANOSECONDS.toMillis(maxBehindNanos), unique, uniqueAfter, failures.get());
    }

    /**
     * Idempotent, acks=all, one request in flight (as test-data's KafkaTopicDestination, for the same
     * reason), but a short linger: time spent in the producer's batch is part of what is measured.
     */
    private static Properties properties(String bootstrapServers) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return properties;
    }
}
