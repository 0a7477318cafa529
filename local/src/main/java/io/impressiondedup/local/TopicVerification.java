package io.impressiondedup.local;

import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.StatsTopicCheck;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.io.IOException;

/**
 * The finished job's topics held against the ground truth: the output and dead-letter topics record by
 * record (read_committed), and the reconciliation rows of the stats topic per partition and hour.
 *
 * @param records the output and dead-letter topics against the ground truth
 * @param reconciliation the stats topic's rows against the same counts
 * @param seconds how long reading and checking took
 */
record TopicVerification(VerificationReport records, StatsTopicCheck reconciliation, double seconds) {

    static TopicVerification run(GeneratedInput input, String bootstrapServers, LocalTopics topics, RunConsole console)
            throws IOException {
        console.step("Verifying the output and dead-letter topics (read_committed) against the ground truth");
        Stopwatch stopwatch = Stopwatch.start();
        VerificationReport records = Verifier.verifyTopics(GroundTruth.read(input.truthFile()), bootstrapServers, topics.output(),
                topics.deadLetters());
        // The end of input closed every hour, so the stats topic holds all its rows.
        StatsTopicCheck reconciliation = StatsTopicCheck.run(input.truthFile(), bootstrapServers, topics.input(), topics.output(),
                topics.deadLetters(), topics.stats());
        return new TopicVerification(records, reconciliation, stopwatch.seconds());
    }
}
