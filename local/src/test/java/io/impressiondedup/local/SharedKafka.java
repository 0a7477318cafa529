package io.impressiondedup.local;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** One real Kafka broker for all tests of a JVM (starting one costs seconds); each test uses its own topics. */
final class SharedKafka {

    private static EmbeddedKafkaBroker broker;
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private SharedKafka() {}

    static synchronized EmbeddedKafkaBroker broker() throws Exception {
        if (broker == null) {
            broker = EmbeddedKafkaBroker.start();
            EmbeddedKafkaBroker started = broker;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // JVM exit
                }
            }));
        }
        return broker;
    }

    /** Fresh topic names {in, out, dlq} with a unique suffix, created with the given input partitions. */
    static String[] topics(String test, int inputPartitions) throws Exception {
        int n = TOPICS.incrementAndGet();
        String[] names = {test + "-in-" + n, test + "-out-" + n, test + "-dlq-" + n};
        broker().createTopics(Map.of(names[0], inputPartitions, names[1], 2, names[2], 1));
        return names;
    }
}
