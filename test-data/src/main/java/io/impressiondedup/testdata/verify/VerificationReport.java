package io.impressiondedup.testdata.verify;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import io.impressiondedup.testdata.TestDataHeaders;

/** The verifier's findings: counts, rates, and a few example sequence numbers of each problem. */
public final class VerificationReport {

    static final int EXAMPLES = 10;

    long input;
    long outputRecords;
    long deadLetterRecords;
    long dropped;
    long expectedOutputs;
    long falsePositives;
    long falseNegatives;
    long lost;
    long writtenTwice;
    long deadLettersInOutput;
    long misclassifiedDeadLetters;
    long unidentified;
    long genuineDeadLettered;
    long duplicatesDropped;
    final Map<String, Long> inputByClass = new TreeMap<>();
    final Map<String, Long> deadLettersByReason = new TreeMap<>();
    /** "class -> reason" pairs that disagree with the ground truth. */
    final Map<String, Long> misclassifications = new TreeMap<>();
    final Map<String, List<Long>> examples = new TreeMap<>();
    /** Genuine impressions (groups) that reached only the dead-letter topic, by reason; every known reason listed, late first. */
    final Map<String, Long> genuineDeadLetteredByReason = new LinkedHashMap<>();

    VerificationReport() {
        for (String reason : new String[] {"late", "malformed", "oversized", "future-timestamp", "schema-unknown"}) {
            genuineDeadLetteredByReason.put(reason, 0L);
        }
    }

    public long falsePositives() {
        return falsePositives;
    }

    public long falseNegatives() {
        return falseNegatives;
    }

    public long lost() {
        return lost;
    }

    public long writtenTwice() {
        return writtenTwice;
    }

    public long misclassifiedDeadLetters() {
        return misclassifiedDeadLetters;
    }

    public long deadLettersInOutput() {
        return deadLettersInOutput;
    }

    /** Genuine impressions (identity groups) of which no record reached the output but one reached the dead-letter topic. */
    public long genuineDeadLettered() {
        return genuineDeadLettered;
    }

    /** {@link #genuineDeadLettered()} by the reason the job gave, every known reason listed. */
    public Map<String, Long> genuineDeadLetteredByReason() {
        return genuineDeadLetteredByReason;
    }

    /** Records in no topic whose group reached the output: duplicates dropped, late duplicates included. */
    public long duplicatesDropped() {
        return duplicatesDropped;
    }

    /** E.g. {@code late 0, malformed 0, oversized 0, future-timestamp 0, schema-unknown 0}. */
    public String genuineDeadLetteredText() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : genuineDeadLetteredByReason.entrySet()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(String.format(Locale.ROOT, "%,d", e.getValue()));
        }
        return sb.toString();
    }

    public long unidentified() {
        return unidentified;
    }

    public long input() {
        return input;
    }

    public long outputRecords() {
        return outputRecords;
    }

    public long deadLetterRecords() {
        return deadLetterRecords;
    }

    public long dropped() {
        return dropped;
    }

    public long expectedOutputs() {
        return expectedOutputs;
    }

    public Map<String, Long> deadLettersByReason() {
        return deadLettersByReason;
    }

    /**
     * What breaks "nothing lost, nothing double counted, nothing silent", by name and count: false negatives,
     * lost records, records written twice, dead letters in the output, misclassified dead letters, unidentified
     * records, genuine impressions dead-lettered. Empty when the run was exactly once. False positives are not
     * in it: they are allowed up to the configured FPP, which callers check against {@link #falsePositiveRate()}.
     */
    public Map<String, Long> exactlyOnceViolations() {
        Map<String, Long> violations = new LinkedHashMap<>();
        putIfPositive(violations, "false negatives", falseNegatives);
        putIfPositive(violations, "lost records", lost);
        putIfPositive(violations, "records written twice", writtenTwice);
        putIfPositive(violations, "dead letters in the output", deadLettersInOutput);
        putIfPositive(violations, "misclassified dead letters", misclassifiedDeadLetters);
        putIfPositive(violations, "unidentified records", unidentified);
        putIfPositive(violations, "genuine impressions dead-lettered", genuineDeadLettered);
        return violations;
    }

    private static void putIfPositive(Map<String, Long> violations, String what, long count) {
        if (count > 0) {
            violations.put(what, count);
        }
    }

    /** Unique impressions wrongly dropped, over the unique impressions expected. */
    public double falsePositiveRate() {
        return expectedOutputs == 0 ? 0 : (double) falsePositives / expectedOutputs;
    }

    void example(String problem, long seq) {
        List<Long> list = examples.computeIfAbsent(problem, p -> new ArrayList<>());
        if (list.size() < EXAMPLES) {
            list.add(seq);
        }
    }

    /** The human-readable summary; {@code configuredFpp} may be NaN if unknown. */
    public String toText(double configuredFpp) {
        StringBuilder sb = new StringBuilder();
        line(sb, "input records", String.format(Locale.ROOT, "%,d  %s", input, inputByClass));
        line(sb, "output records", String.format(Locale.ROOT, "%,d", outputRecords));
        line(sb, "dead-letter records", String.format(Locale.ROOT, "%,d  %s", deadLetterRecords, deadLettersByReason));
        line(sb, "dropped (in no topic)", String.format(Locale.ROOT, "%,d (of which %,d duplicates of a record in the output, late"
                + " duplicates included)", dropped, duplicatesDropped));
        line(sb, "false positives", String.format(Locale.ROOT, "%,d of %,d unique impressions = %.6f%s", falsePositives,
                expectedOutputs, falsePositiveRate(),
                Double.isNaN(configuredFpp) ? "" : String.format(Locale.ROOT, " (configured FPP %s, %.2fx)", configuredFpp,
                        falsePositiveRate() / configuredFpp)));
        line(sb, "false negatives", String.format(Locale.ROOT, "%,d (duplicates that reached the output; must be 0)", falseNegatives));
        line(sb, "lost", String.format(Locale.ROOT, "%,d (dead-letter records in no topic; must be 0)", lost));
        line(sb, "written twice", String.format(Locale.ROOT, "%,d (must be 0 under exactly-once)", writtenTwice));
        line(sb, "dead letters in output", String.format(Locale.ROOT, "%,d (must be 0)", deadLettersInOutput));
        line(sb, "genuine dead-lettered", String.format(Locale.ROOT, "%,d (genuine impressions only in the dead-letter topic: %s;"
                + " must be 0)", genuineDeadLettered, genuineDeadLetteredText()));
        line(sb, "misclassified dead letters", String.format(Locale.ROOT, "%,d %s", misclassifiedDeadLetters, misclassifications));
        line(sb, "unidentified records", String.format(Locale.ROOT, "%,d (no or unknown %s header)", unidentified, TestDataHeaders.SEQ));
        for (Map.Entry<String, List<Long>> e : examples.entrySet()) {
            line(sb, "  e.g. " + e.getKey(), "seq " + e.getValue());
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String label, String value) {
        sb.append(String.format(Locale.ROOT, "%-28s %s%n", label + ":", value));
    }

    public String toJson(double configuredFpp) {
        StringWriter writer = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(writer).useDefaultPrettyPrinter()) {
            json.writeStartObject();
            json.writeNumberField("input", input);
            writeMap(json, "inputByClass", inputByClass);
            json.writeNumberField("output", outputRecords);
            json.writeNumberField("deadLettered", deadLetterRecords);
            writeMap(json, "deadLettersByReason", deadLettersByReason);
            json.writeNumberField("dropped", dropped);
            json.writeNumberField("duplicatesDropped", duplicatesDropped);
            json.writeNumberField("expectedUniqueOutputs", expectedOutputs);
            json.writeNumberField("falsePositives", falsePositives);
            json.writeNumberField("falsePositiveRate", falsePositiveRate());
            if (!Double.isNaN(configuredFpp)) {
                json.writeNumberField("configuredFpp", configuredFpp);
            }
            json.writeNumberField("falseNegatives", falseNegatives);
            json.writeNumberField("lost", lost);
            json.writeNumberField("writtenTwice", writtenTwice);
            json.writeNumberField("deadLettersInOutput", deadLettersInOutput);
            json.writeNumberField("genuineDeadLettered", genuineDeadLettered);
            writeMap(json, "genuineDeadLetteredByReason", genuineDeadLetteredByReason);
            json.writeNumberField("misclassifiedDeadLetters", misclassifiedDeadLetters);
            writeMap(json, "misclassifications", misclassifications);
            json.writeNumberField("unidentified", unidentified);
            json.writeObjectFieldStart("examples");
            for (Map.Entry<String, List<Long>> e : examples.entrySet()) {
                json.writeArrayFieldStart(e.getKey());
                for (long seq : e.getValue()) {
                    json.writeNumber(seq);
                }
                json.writeEndArray();
            }
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return writer.toString();
    }

    private static void writeMap(JsonGenerator json, String name, Map<String, Long> map) throws IOException {
        json.writeObjectFieldStart(name);
        for (Map.Entry<String, Long> e : map.entrySet()) {
            json.writeNumberField(e.getKey(), e.getValue());
        }
        json.writeEndObject();
    }
}
