package io.impressiondedup.testdata.verify;

import java.util.Map;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.TestDataHeaders;

/**
 * Compares what the job wrote with the ground truth.
 *
 * <ul>
 *   <li><b>False positive</b>: an identity group (a unique impression with its copies within the
 *       retention, or a copy beyond the retention on its own) of which no record reached the output
 *       and none was dead-lettered: a real impression lost to the Bloom filter. Counting groups, not
 *       records, keeps the verdict right when a copy arrives before its original and is the one kept.
 *   <li><b>False negative</b>: every record of a group in the output beyond the first: a duplicate that
 *       got through. Must be 0.
 *   <li><b>Lost</b>: a record the job had to dead-letter that is in neither topic. Must be 0.
 *   <li><b>Written twice</b>: a record present more than once over both topics. Must be 0 under
 *       exactly-once.
 *   <li><b>Misclassified</b>: a dead letter whose reason is not what its class calls for (including an
 *       impression dead-lettered at all); <b>dead letters in output</b>: a record that had to be
 *       dead-lettered but was passed.
 *   <li><b>Genuine impressions dead-lettered</b>, by reason: a group of which no record reached the
 *       output but at least one reached the dead-letter topic (the reason is that of its first
 *       dead-lettered record): a real impression the job set aside, e.g. one a delayed client flushed
 *       within the allowed lateness that was judged late. Must be 0. Each such record is misclassified
 *       too; a group is counted here, not as a false positive.
 *   <li><b>Duplicates dropped</b>: records of a group that reached the output, themselves in no topic:
 *       copies dropped as they should be, late duplicates (copies that arrived past the allowed
 *       lateness and were found in a live bucket) included. Never a problem.
 * </ul>
 */
public final class Verifier {

    private Verifier() {}

    /**
     * Reads the job's output and dead-letter topics whole, with {@code isolation.level=read_committed}
     * ({@link TopicReader}), and compares them with the ground truth.
     */
    public static VerificationReport verifyTopics(GroundTruth truth, String bootstrapServers, String outputTopic,
            String deadLetterTopic) {
        return verifyTopics(truth, bootstrapServers, outputTopic, deadLetterTopic, Map.of());
    }

    /** {@link #verifyTopics(GroundTruth, String, String, String)} with extra Kafka consumer properties (security, say). */
    public static VerificationReport verifyTopics(GroundTruth truth, String bootstrapServers, String outputTopic,
            String deadLetterTopic, Map<String, String> clientProperties) {
        ObservedRecords observed = new ObservedRecords(truth.size());
        TopicReader.readAll(bootstrapServers, outputTopic, clientProperties,
                r -> observed.output(TopicReader.lastHeader(r, TestDataHeaders.SEQ)));
        TopicReader.readAll(bootstrapServers, deadLetterTopic, clientProperties, r -> observed.deadLetter(
                TopicReader.lastHeader(r, TestDataHeaders.SEQ), TopicReader.lastHeader(r, TestDataHeaders.DEAD_LETTER_REASON)));
        return verify(truth, observed);
    }

    public static VerificationReport verify(GroundTruth truth, ObservedRecords observed) {
        VerificationReport report = new VerificationReport();
        int n = truth.size();
        report.input = n;
        report.outputRecords = observed.outputRecords();
        report.deadLetterRecords = observed.deadLetterRecords();
        report.unidentified = observed.unidentified();
        if (observed.unidentified() > 0) {
            report.misclassifications.putAll(observed.unknownReasons());
        }

        int[] groupOutputs = new int[n];
        /** Per group, the reason code of its first dead-lettered record (0: none). */
        byte[] groupDeadLetterReason = new byte[n];
        long inAnyTopic = 0;
        for (int seq = 0; seq < n; seq++) {
            RecordClass recordClass = truth.recordClass(seq);
            report.inputByClass.merge(recordClass.label(), 1L, Long::sum);
            int outputs = observed.timesInOutput(seq);
            int deadLetters = observed.timesInDeadLetters(seq);
            if (outputs + deadLetters > 0) {
                inAnyTopic++;
            }
            if (outputs + deadLetters > 1) {
                report.writtenTwice++;
                report.example("written-twice", seq);
            }
            if (deadLetters > 0) {
                String reason = observed.reason(seq);
                report.deadLettersByReason.merge(reason == null ? "(unknown)" : reason, 1L, Long::sum);
                String expected = truth.expectedReason(seq);
                if (expected == null || !expected.equals(reason)) {
                    report.misclassifiedDeadLetters++;
                    report.misclassifications.merge(recordClass.label() + " -> " + reason, 1L, Long::sum);
                    report.example("misclassified", seq);
                }
            }
            if (recordClass.isDeadLetter()) {
                if (outputs > 0) {
                    report.deadLettersInOutput++;
                    report.example("dead-letter-in-output", seq);
                } else if (deadLetters == 0) {
                    report.lost++;
                    report.example("lost", seq);
                }
            } else {
                int group = truth.group(seq);
                if (outputs > 0) {
                    groupOutputs[group]++;
                }
                if (deadLetters > 0 && groupDeadLetterReason[group] == 0) {
                    groupDeadLetterReason[group] = (byte) observed.reasonCode(seq);
                }
            }
        }
        for (int seq = 0; seq < n; seq++) {
            RecordClass recordClass = truth.recordClass(seq);
            if (!recordClass.isDeadLetter() && groupOutputs[truth.group(seq)] > 0
                    && observed.timesInOutput(seq) + observed.timesInDeadLetters(seq) == 0) {
                report.duplicatesDropped++;
            }
            if (!recordClass.opensGroup()) {
                continue;
            }
            report.expectedOutputs++;
            if (groupOutputs[seq] == 0 && groupDeadLetterReason[seq] == 0) {
                report.falsePositives++;
                report.example("false-positive", seq);
            } else if (groupOutputs[seq] == 0) {
                int code = groupDeadLetterReason[seq];
                String reason = code > 0 && code < GroundTruth.REASONS.length ? GroundTruth.REASONS[code] : "(unknown)";
                report.genuineDeadLettered++;
                report.genuineDeadLetteredByReason.merge(reason, 1L, Long::sum);
                report.example("genuine-dead-lettered (group)", seq);
            } else if (groupOutputs[seq] > 1) {
                report.falseNegatives += groupOutputs[seq] - 1;
                report.example("false-negative (group)", seq);
            }
        }
        report.dropped = n - inAnyTopic;
        return report;
    }
}
