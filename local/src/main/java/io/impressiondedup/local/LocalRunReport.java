package io.impressiondedup.local;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.testdata.verify.VerificationReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run's report ({@code report.txt}, and on the console): what was generated, the job's accounting,
 * the topics against the ground truth, the reconciliation rows, throughput, state size and the time of
 * each phase. Figures only; {@link Verdict} decides whether they pass.
 */
final class LocalRunReport {

    private LocalRunReport() {}

    static String text(LocalRunSettings settings, LocalTopics topics, GeneratedInput input, ProgressPoller.FinishedJob job,
            TopicVerification verification, double totalSeconds) {
        Map<String, Object> accumulators = job.accumulators();
        VerificationReport v = verification.records();
        JobMonitor monitor = job.monitor();
        SteadyRate steady = job.steady();
        long read = Accounting.count(accumulators, Accounting.INPUT);
        List<String> lines = new ArrayList<>();
        lines.add("=== Local run report ===");
        lines.add(String.format(Locale.ROOT, "Generated:        %,d records %s", settings.count(), input.classes()));
        lines.add(String.format(Locale.ROOT, "Accounting:       %s", Accounting.summary(accumulators)));
        lines.add(String.format(Locale.ROOT, "Late and DLQ:     late %,d; late duplicates %,d (dropped, part of duplicates);"
                        + " dead-lettered %,d (malformed, oversized, far-future; late ones are counted as late)",
                Accounting.count(accumulators, DedupOperator.ACCUMULATOR_LATE),
                Accounting.count(accumulators, DedupOperator.ACCUMULATOR_LATE_DUPLICATES),
                Accounting.count(accumulators, Accounting.DEAD_LETTERED)));
        lines.add(String.format(Locale.ROOT, "Output topic:     %,d records; dead-letter topic: %,d records %s", v.outputRecords(),
                v.deadLetterRecords(), v.deadLettersByReason()));
        lines.add(String.format(Locale.ROOT, "Genuine in DLQ:   %,d genuine impressions dead-lettered, by reason: %s (must be 0)",
                v.genuineDeadLettered(), v.genuineDeadLetteredText()));
        lines.add(String.format(Locale.ROOT, "False positives:  %,d of %,d unique impressions = %.6f (configured FPP %s)",
                v.falsePositives(), v.expectedOutputs(), v.falsePositiveRate(), settings.fpp()));
        lines.add(String.format(Locale.ROOT, "False negatives:  %,d (duplicates that reached the output)", v.falseNegatives()));
        lines.add(String.format(Locale.ROOT, "Lost:             %,d; written twice: %,d; misclassified dead letters: %,d; dead letters in output: %,d",
                v.lost(), v.writtenTwice(), v.misclassifiedDeadLetters(), v.deadLettersInOutput()));
        lines.add(String.format(Locale.ROOT, "Reconciliation:   topic %s: %s", topics.stats(), verification.reconciliation().summary()));
        lines.add(String.format(Locale.ROOT, "Throughput:       %,.0f records/s over the job's %.1f s (including start-up and the final checkpoint)",
                read / job.seconds(), job.seconds()));
        lines.add(String.format(Locale.ROOT, "Steady rate:      %s (%s)", steady.recordsPerSecond().isPresent()
                ? String.format(Locale.ROOT, "%,.0f records/s", steady.recordsPerSecond().getAsDouble()) : "not measured",
                steady.describeWindow()));
        lines.add(String.format(Locale.ROOT, "State:            last checkpoint %s (full size %s); %s",
                Readable.bytes(monitor.checkpointedBytes), Readable.bytes(monitor.checkpointFullBytes), monitor.liveBuckets > 0
                        ? String.format(Locale.ROOT, "Bloom filters %s in %d shard-buckets (gauges as last fetched during the run)",
                                Readable.bytes(monitor.bloomBytes), monitor.liveBuckets)
                        : "Bloom filter gauges not seen (the job ended before the REST API had them)"));
        lines.add(String.format(Locale.ROOT, "Time:             generate %.1f s, job %.1f s, verify %.1f s, total %.1f s",
                input.seconds(), job.seconds(), verification.seconds(), totalSeconds));
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }
}
