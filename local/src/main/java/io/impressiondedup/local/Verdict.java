package io.impressiondedup.local;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether the run passed, and its exit code: 0 if no exactly-once rule was broken (no duplicate passed, no
 * genuine impression dead-lettered, nothing lost or written twice), the false positives are within the
 * bound from the filters' fill ({@link FalsePositiveLimit}), and the reconciliation rows equal the
 * verifier's counts; 1 otherwise.
 */
final class Verdict {

    static final int PASSED = 0;
    static final int FAILED = 1;

    private final TopicVerification verification;
    private final List<String> falsePositivesExceeded;

    private Verdict(TopicVerification verification, List<String> falsePositivesExceeded) {
        this.verification = verification;
        this.falsePositivesExceeded = falsePositivesExceeded;
    }

    /** The verdict on {@code verification} of the job started as {@code job}, whose plan bounds the false positives. */
    static Verdict of(TopicVerification verification, GeneratedInput input, StartedJob job) throws java.io.IOException {
        return new Verdict(verification, FalsePositiveLimit.exceeded(verification.records(),
                FalsePositiveLimit.of(input.truthFile(), job.config().dedupSettings().plan())));
    }

    boolean ok() {
        return verification.records().exactlyOnceViolations().isEmpty() && falsePositivesExceeded.isEmpty()
                && verification.reconciliation().problems().isEmpty();
    }

    int exitCode() {
        return ok() ? PASSED : FAILED;
    }

    /** What broke, one phrase each, for the result line. */
    private List<String> failures() {
        List<String> failures = new ArrayList<>();
        verification.records().exactlyOnceViolations().forEach((what, count) -> failures.add(what + ": " + count));
        if (!falsePositivesExceeded.isEmpty()) {
            failures.add("false positives over the bound, see above");
        }
        int reconciliationProblems = verification.reconciliation().problems().size();
        if (reconciliationProblems > 0) {
            failures.add(reconciliationProblems + " reconciliation problems, see the Reconciliation line");
        }
        return failures;
    }

    /** Prints each false-positive bound exceeded, then the result line. */
    void print(RunConsole console) {
        falsePositivesExceeded.forEach(line -> console.println("Too many false positives: " + line));
        console.println(ok() ? "Result: OK (no duplicate passed, no genuine impression dead-lettered, nothing lost or written twice,"
                + " false positives within the bound from the filters' fill, reconciliation rows equal to the verifier's counts)"
                : "Result: FAILED (" + String.join("; ", failures()) + ")");
    }
}
