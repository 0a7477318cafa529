package io.impressiondedup.testdata.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VerificationReportTest {

    @Test
    void anExactlyOnceRunHasNoViolationsEvenWithFalsePositivesWithinTheFpp() {
        VerificationReport report = new VerificationReport();
        report.falsePositives = 3;

        assertThat(report.exactlyOnceViolations()).isEmpty();
    }

    @Test
    void everyBrokenPromiseIsNamedWithItsCount() {
        VerificationReport report = new VerificationReport();
        report.falseNegatives = 1;
        report.lost = 2;
        report.writtenTwice = 3;
        report.deadLettersInOutput = 4;
        report.misclassifiedDeadLetters = 5;
        report.unidentified = 6;
        report.genuineDeadLettered = 7;

        assertThat(report.exactlyOnceViolations()).containsExactly(
                java.util.Map.entry("false negatives", 1L),
                java.util.Map.entry("lost records", 2L),
                java.util.Map.entry("records written twice", 3L),
                java.util.Map.entry("dead letters in the output", 4L),
                java.util.Map.entry("misclassified dead letters", 5L),
                java.util.Map.entry("unidentified records", 6L),
                java.util.Map.entry("genuine impressions dead-lettered", 7L));
    }
}
