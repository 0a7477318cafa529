package io.impressiondedup.local;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.FalsePositiveBound;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.verify.VerificationReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongFunction;
import java.util.stream.IntStream;

/**
 * The false positives a run over a generated stream may show, for the checks that see only its end result
 * (the local run, the broker and cluster tests): {@link FalsePositiveBound#addStream} over the ground truth's
 * event times. The impressions inserted are those the verifier expects in the output (unique ones, and copies
 * beyond the retention, which pass as new); late ones are checked against the filters but inserted nowhere.
 */
public final class FalsePositiveLimit {

    private FalsePositiveLimit() {}

    /** The bound for a job run under {@code plan} over the stream of {@code truthFile}. */
    public static FalsePositiveBound of(Path truthFile, DedupPlan plan) throws IOException {
        return of(truthFile, plan, bucket -> plan.stateFormat());
    }

    /** The bound for a run under {@code plan} whose buckets are in the format {@code formatOfBucket} gives (across a switch). */
    public static FalsePositiveBound of(Path truthFile, DedupPlan plan, LongFunction<StateFormat> formatOfBucket) throws IOException {
        GroundTruth truth = GroundTruth.read(truthFile);
        long[] times = GroundTruth.eventTimes(truthFile);
        return new FalsePositiveBound(plan).addStream(
                timesOf(truth, times, RecordClass.UNIQUE, RecordClass.DUPLICATE_BEYOND_RETENTION), timesOf(truth, times, RecordClass.LATE),
                formatOfBucket);
    }

    /** The bound for a job run with {@code jobArgs} (its command line) over the stream of {@code truthFile}. */
    public static FalsePositiveBound of(Path truthFile, List<String> jobArgs) throws IOException {
        return of(truthFile, DedupJobConfig.parse(jobArgs.toArray(new String[0])).dedupSettings().plan());
    }

    /** Empty if the report's false positives are within the bound; else one line saying by how much they are not. */
    public static List<String> exceeded(VerificationReport report, FalsePositiveBound bound) {
        return report.falsePositives() <= bound.limit() ? List.of() : List.of(bound.describe(report.falsePositives()));
    }

    private static long[] timesOf(GroundTruth truth, long[] times, RecordClass... classes) {
        List<RecordClass> wanted = List.of(classes);
        return IntStream.range(0, truth.size()).filter(seq -> wanted.contains(truth.recordClass(seq))).mapToLong(seq -> times[seq]).toArray();
    }
}
