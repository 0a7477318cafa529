package io.impressiondedup.job.io;

import java.time.Duration;

/** Test access to {@link KafkaChecks#check}. */
public final class KafkaChecksAccess {
    private KafkaChecksAccess() {}

    public static void check(Duration transactionTimeout, Long brokerMaxMillis) {
        KafkaChecks.check(transactionTimeout, brokerMaxMillis);
    }
}
