package io.impressiondedup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Medians from a JMH JSON result ({@code -rf json -rff file}): the median over every measurement
 * iteration of every fork, which a noisy shared machine disturbs far less than the mean, and each
 * benchmark's ratio to a baseline benchmark measured in the same run.
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar io.impressiondedup.bench.JmhMedians result.json
 * [pair ...]} where a pair is {@code ours=baseline} (method names), e.g. {@code blockedPut=guavaPut}.
 */
public final class JmhMedians {

    private JmhMedians() {}

    public static void main(String[] args) throws IOException {
        JsonNode results = new ObjectMapper().readTree(new File(args[0]));
        Map<String, double[]> medians = new LinkedHashMap<>();
        System.out.printf(Locale.ROOT, "%-32s %10s %10s %10s %8s  %s%n", "benchmark", "median", "min", "max", "samples", "unit");
        for (JsonNode result : results) {
            String name = result.get("benchmark").asText();
            String method = name.substring(name.lastIndexOf('.') + 1);
            List<Double> samples = new ArrayList<>();
            for (JsonNode fork : result.get("primaryMetric").get("rawData")) {
                for (JsonNode iteration : fork) {
                    samples.add(iteration.asDouble());
                }
            }
            samples.sort(Double::compare);
            double median = median(samples);
            medians.put(method, new double[] {median});
            System.out.printf(Locale.ROOT, "%-32s %10.2f %10.2f %10.2f %8d  %s%n", method, median, samples.get(0),
                    samples.get(samples.size() - 1), samples.size(), result.get("primaryMetric").get("scoreUnit").asText());
        }
        for (int i = 1; i < args.length; i++) {
            String[] pair = args[i].split("=");
            double ours = medians.get(pair[0])[0];
            double baseline = medians.get(pair[1])[0];
            System.out.printf(Locale.ROOT, "%s vs %s: %.2fx faster (time per op %.2f vs %.2f)%n", pair[0], pair[1], baseline / ours, ours, baseline);
        }
    }

    static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
