package io.impressiondedup.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.knowm.xchart.style.Styler;

/**
 * The plots at the top of docs/BENCHMARKS.md, drawn from the results files in bench/results/ (the output of
 * {@code bench/run-cluster-headline.sh} and of {@code AllowedLatenessStateCost}). Every figure is read from the files, and
 * each plot reads the newest file of its kind ({@code DATE-<name>} below), so a new run saved under a later date redraws it;
 * the files read are printed. Run from the repository root: {@code HeadlineCharts [RESULTS_DIR [IMG_DIR]]}, by default
 * bench/results and docs/img.
 */
public final class HeadlineCharts {

    /** Our cluster configuration (deploy/local), small state: the headline. */
    static final String HEADLINE = "cluster-headline.txt";
    /** Flink's default configuration, small state. */
    static final String DEFAULTS_SMALL = "flink-defaults-small.txt";
    /** Flink's default configuration, 20M impressions restored; of its runs, B is what the job ships. */
    static final String DEFAULTS_RESTORED = "flink-defaults-20m.txt";
    static final String DEFAULTS_RESTORED_SECTION = "B";
    /** Our cluster configuration, 50M impressions restored; run (C) has the settings side by side. */
    static final String OURS_RESTORED = "cluster-50m-state-settings.txt";
    static final String OURS_RESTORED_SECTION = "(C)";
    /** Savepoint bytes of both state formats. */
    static final String STATE_BYTES = "state-formats-bytes.txt";
    /** Checkpoint bytes of both state formats on the cluster, RocksDB and heap. */
    static final List<String> CHECKPOINT_RUNS = List.of("cluster-state-formats-cached.txt", "cluster-state-formats-heap.txt");
    /**
     * Flink's default configuration with impressions restored from {@code bootstrap}: which run and variant is each size and
     * format (the small-state point is {@link #DEFAULTS_SMALL}'s).
     */
    static final List<StatePoint> DEFAULTS_STATE_POINTS = List.of(
            new StatePoint(10, "flink-defaults-10m.txt", "dedup-rocksdb-restored", "bloom"),
            new StatePoint(10, "flink-defaults-10m.txt", "dedup-rocksdb-restored-fp", "fingerprints"),
            new StatePoint(20, "flink-defaults-20m-cache-grows.txt", "dedup-rocksdb-restored", "bloom"),
            new StatePoint(20, "flink-defaults-20m-fingerprints.txt", "dedup-rocksdb-restored-fp", "fingerprints"),
            new StatePoint(50, "flink-defaults-as-shipped-50m-both-formats-51bdd9d.txt", "dedup-rocksdb-restored", "bloom"),
            new StatePoint(50, "flink-defaults-as-shipped-50m-both-formats-51bdd9d.txt", "dedup-rocksdb-restored-fp", "fingerprints"),
            new StatePoint(200, "flink-defaults-200m-bloom.txt", "dedup-rocksdb-restored", "bloom"),
            new StatePoint(200, "flink-defaults-200m.txt", "dedup-rocksdb-restored", "fingerprints"));

    /** One measured point: {@code millions} impressions restored, the run's results file and its variant in {@code format}. */
    record StatePoint(int millions, String file, String variant, String format) {}

    /** Recovery after a TaskManager kill on Flink's default configuration (run-recovery.sh): each size's file and section. */
    static final List<RecoveryPoint> DEFAULTS_RECOVERY_POINTS = List.of(
            new RecoveryPoint(10, "flink-defaults-10m-recovery.txt", "Bloom", "bloom"),
            new RecoveryPoint(10, "flink-defaults-10m-recovery.txt", "Fingerprints", "fingerprints"),
            new RecoveryPoint(50, "flink-defaults-50m-recovery.txt", "Bloom", "bloom"),
            new RecoveryPoint(50, "flink-defaults-50m-recovery.txt", "Fingerprints", "fingerprints"),
            new RecoveryPoint(200, "flink-defaults-200m-bloom-recovery.txt", "", "bloom"),
            new RecoveryPoint(200, "flink-defaults-200m-recovery.txt", "", "fingerprints"));

    /** One recovery: {@code millions} restored, the results file, its "## " section ("" for a file of one run), the format. */
    record RecoveryPoint(int millions, String file, String section, String format) {}

    private static final double NONE = Double.NaN;

    private HeadlineCharts() {}

    public static void main(String[] args) throws IOException {
        Path results = Path.of(args.length > 0 ? args[0] : "bench/results");
        Path img = Path.of(args.length > 1 ? args[1] : "docs/img");
        if (!Files.isDirectory(results)) {
            throw new IllegalArgumentException("no " + results.toAbsolutePath()
                    + ": run from the repository root or pass RESULTS_DIR [IMG_DIR]");
        }
        Files.createDirectories(img);
        throughput(latest(results, HEADLINE), img.resolve("headline-throughput.png"), "our cluster configuration (deploy/local)");
        throughput(latest(results, DEFAULTS_SMALL), img.resolve("headline-throughput-flink-defaults.png"), "Flink's default configuration");
        stateSize(results, img.resolve("headline-state-size.png"));
        bytesPerImpression(results, img.resolve("bytes-per-impression.png"));
        stateSizeOnFlinkDefaults(results, img.resolve("state-size-flink-defaults.png"),
                img.resolve("state-size-checkpoint-bytes-flink-defaults.png"));
        recoveryOnFlinkDefaults(results, img.resolve("state-size-recovery-flink-defaults.png"));
    }

    /** The newest results file of a kind: DATE-name, DATE as yyyy-MM-dd. */
    static Path latest(Path results, String name) throws IOException {
        Pattern dated = Pattern.compile("\\d{4}-\\d{2}-\\d{2}-" + Pattern.quote(name));
        try (Stream<Path> files = Files.list(results)) {
            return files.filter(f -> dated.matcher(f.getFileName().toString()).matches())
                    .max(Comparator.comparing(f -> f.getFileName().toString()))
                    .orElseThrow(() -> new IllegalArgumentException("no DATE-" + name + " in " + results));
        }
    }

    private static List<String> read(Path file, Path png) throws IOException {
        System.out.println(png.getFileName() + " <- " + file);
        return Files.readAllLines(file);
    }

    // ---- the plots

    private static void throughput(Path file, Path png, String config) throws IOException {
        List<String> lines = read(file, png);
        Section run = sections(lines).values().iterator().next();
        String before = beforeCommit(lines);
        List<String> names = new ArrayList<>();
        List<Double> vsKeyed = new ArrayList<>();
        List<Double> vsByte = new ArrayList<>();
        List<Double> byCpu = new ArrayList<>();
        for (Row row : run.rows().values()) {
            names.add(label(row.variant(), before));
            vsKeyed.add(orNull(row.vsKeyed()));
            vsByte.add(orNull(row.vsByte()));
            byCpu.add(orNull(row.keyedCpuOverThis()));
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("steady rate / keyed pass-through's", vsKeyed);
        series.put("steady rate / byte pass-through's", vsByte);
        series.put("keyed pass-through's CPU per record / this one's", byCpu);
        series.values().removeIf(values -> values.stream().allMatch(v -> v == null));
        Charts.groupedBars(png, "Steady throughput against the pass-throughs, " + config + " (" + file.getFileName() + ")", "variant",
                "ratio (1 = as fast as the pass-through)", names, series);
    }

    private static void stateSize(Path results, Path png) throws IOException {
        Map<String, double[][]> series = new LinkedHashMap<>();
        double oursEmpty = sections(read(latest(results, HEADLINE), png)).values().iterator().next().rows().get("dedup-rocksdb").vsKeyed();
        List<String> ours = read(latest(results, OURS_RESTORED), png);
        double oursMillions = impressionsInState(ours) / 1e6;
        Section oursRestored = section(ours, OURS_RESTORED_SECTION, "dedup-rocksdb-restored");
        Map<String, String> oursSettings = variantSettings(oursRestored.lines());
        for (Row row : oursRestored.rows().values()) {
            if (!row.variant().startsWith("dedup-rocksdb-restored")) {
                continue;
            }
            String settings = oursSettings.get(row.variant());
            if (settings == null) {
                series.put("deploy/local config, the job's defaults", new double[][] {{0, oursMillions}, {oursEmpty, row.vsKeyed()}});
            } else {
                series.put("deploy/local config, " + settings, new double[][] {{oursMillions}, {row.vsKeyed()}});
            }
        }
        double defaultsEmpty = sections(read(latest(results, DEFAULTS_SMALL), png)).values().iterator().next().rows().get("dedup-rocksdb")
                .vsKeyed();
        List<String> defaults = read(latest(results, DEFAULTS_RESTORED), png);
        double restored = section(defaults, DEFAULTS_RESTORED_SECTION, "dedup-rocksdb-restored").rows().get("dedup-rocksdb-restored")
                .vsKeyed();
        series.put("Flink's default config, the job's defaults",
                new double[][] {{0, impressionsInState(defaults) / 1e6}, {defaultsEmpty, restored}});
        Charts.lines(png, "Steady throughput against the state it starts from (job, Bloom filters, RocksDB)",
                "impressions in state when the run starts (millions)", "steady rate / keyed pass-through's (same run)", series,
                false, false, 0.0, 1.0, Styler.LegendPosition.InsideNE);
    }

    /**
     * Both formats at each size of state restored, on Flink's default configuration: the steady rate against the keyed
     * pass-through of the same run, and the checkpoint bytes uploaded per output record of its 4M-record run.
     */
    private static void stateSizeOnFlinkDefaults(Path results, Path throughputPng, Path checkpointPng) throws IOException {
        Map<String, List<double[]>> ratio = new LinkedHashMap<>();
        Map<String, List<double[]>> bytes = new LinkedHashMap<>();
        List<String> smallLines = read(latest(results, DEFAULTS_SMALL), throughputPng);
        Map<String, Row> small = sections(smallLines).values().iterator().next().rows();
        Map<String, List<Double>> smallBytes = checkpointBytesPerOutput(smallLines, 4_000_000);
        for (String format : List.of("bloom", "fingerprints")) {
            String variant = format.equals("bloom") ? "dedup-rocksdb" : "dedup-fingerprints-rocksdb";
            ratio.computeIfAbsent(format, f -> new ArrayList<>()).add(new double[] {0, small.get(variant).vsKeyed()});
            if (smallBytes.containsKey(variant)) {
                bytes.computeIfAbsent(format, f -> new ArrayList<>()).add(new double[] {0, median(smallBytes.get(variant))});
            }
        }
        for (StatePoint point : DEFAULTS_STATE_POINTS) {
            List<String> lines = read(latest(results, point.file()), throughputPng);
            Row row = sections(lines).values().stream().map(section -> section.rows().get(point.variant())).filter(r -> r != null)
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("no " + point.variant() + " in " + point.file()));
            ratio.computeIfAbsent(point.format(), f -> new ArrayList<>()).add(new double[] {point.millions(), row.vsKeyed()});
            List<Double> perOutput = checkpointBytesPerOutput(lines, 4_000_000).get(point.variant());
            if (perOutput != null) {
                bytes.computeIfAbsent(point.format(), f -> new ArrayList<>()).add(new double[] {point.millions(), median(perOutput)});
            }
        }
        String x = "impressions in state when the run starts (millions)";
        Charts.lines(throughputPng, "Steady throughput against the state restored (Flink's default configuration, the job's defaults)", x,
                "steady rate / keyed pass-through's (same run)", byFormat(ratio), false, false, 0.0, 1.0, Styler.LegendPosition.InsideNE);
        Charts.lines(checkpointPng, "Checkpoint bytes uploaded per output record, 4M-record runs (Flink's default configuration)", x,
                "bytes per output record", byFormat(bytes), false, false, 0.0, null, Styler.LegendPosition.InsideNW);
    }

    /** Seconds from a TaskManager's kill to every task running again, by the state restored, both formats. */
    private static void recoveryOnFlinkDefaults(Path results, Path png) throws IOException {
        Map<String, List<double[]>> seconds = new LinkedHashMap<>();
        for (RecoveryPoint point : DEFAULTS_RECOVERY_POINTS) {
            double killToRunning = killToRunning(read(latest(results, point.file()), png), point.section());
            seconds.computeIfAbsent(point.format(), f -> new ArrayList<>()).add(new double[] {point.millions(), killToRunning});
        }
        Charts.lines(png, "Recovery after a TaskManager kill (Flink's default configuration, run-recovery.sh)",
                "impressions in state when the run starts (millions)", "seconds from the kill to every task running", byFormat(seconds),
                false, false, 0.0, null, Styler.LegendPosition.InsideSE);
    }

    /**
     * The "kill->running" seconds of run-recovery.sh's kill row in the section headed {@code "## " + section} (the whole file
     * for {@code ""}).
     */
    static double killToRunning(List<String> lines, String section) {
        boolean in = section.isEmpty();
        for (String line : lines) {
            if (line.startsWith("## ")) {
                in = line.substring(3).startsWith(section);
            } else if (in && line.startsWith("kill\t")) {
                return Double.parseDouble(line.split("\t")[2]);
            }
        }
        throw new IllegalArgumentException("no kill row" + (section.isEmpty() ? "" : " under ## " + section));
    }

    /** Points by format as the chart's series: "Bloom filters" and "fingerprints", x then y, in the order measured. */
    private static Map<String, double[][]> byFormat(Map<String, List<double[]>> points) {
        Map<String, double[][]> series = new LinkedHashMap<>();
        points.forEach((format, xy) -> {
            xy.sort(Comparator.comparingDouble(p -> p[0]));
            series.put(format.equals("bloom") ? "Bloom filters (default)" : "fingerprints",
                    new double[][] {xy.stream().mapToDouble(p -> p[0]).toArray(), xy.stream().mapToDouble(p -> p[1]).toArray()});
        });
        return series;
    }

    private static void bytesPerImpression(Path results, Path png) throws IOException {
        List<String> categories = new ArrayList<>();
        List<Double> savepoint = new ArrayList<>();
        Path stateBytes = latest(results, STATE_BYTES);
        for (String[] row : stateBytes(read(stateBytes, png))) {
            categories.add(formatLabel(row[0], row[1]));
            savepoint.add(Double.parseDouble(row[2]));
        }
        Double[] checkpoint = new Double[categories.size()];
        for (String name : CHECKPOINT_RUNS) {
            Map<String, List<Double>> perVariant = checkpointBytesPerOutput(read(latest(results, name), png), 4_000_000);
            perVariant.forEach((variant, values) -> {
                int i = categories.indexOf(formatLabel(variant.contains("fingerprints") ? "fingerprints" : "bloom",
                        variant.contains("rocksdb") ? "rocksdb" : "heap"));
                if (i >= 0 && variant.startsWith("dedup-")) {
                    checkpoint[i] = median(values);
                }
            });
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("savepoint bytes per live unique impression (" + stateBytes.getFileName() + ")", savepoint);
        series.put("checkpoint bytes uploaded per output record, 4M-record runs on the cluster, median of rounds",
                Arrays.asList(checkpoint));
        Charts.groupedBars(png, "Bytes per impression, by state format and backend", "state format, backend", "bytes per impression",
                categories, series);
    }

    // ---- the parsers

    /** A variant's figures in one run of run-cluster-headline.sh; NaN where the file has none ("n/a" or no CPU table). */
    record Row(String variant, double steady, double vsKeyed, double vsByte, double tmUsPerRecord, double keyedCpuOverThis) {}

    /** One run's tables: a results file is one run, or several under "## " headings. Rows in the file's order. */
    record Section(String heading, Map<String, Row> rows, List<String> lines) {}

    /** The runs of a results file of run-cluster-headline.sh, by heading ("" before the first "## "). */
    static Map<String, Section> sections(List<String> lines) {
        Map<String, List<String>> byHeading = new LinkedHashMap<>();
        String heading = "";
        for (String line : lines) {
            if (line.startsWith("## ")) {
                heading = line.substring(3).trim();
            }
            byHeading.computeIfAbsent(heading, h -> new ArrayList<>()).add(line);
        }
        Map<String, Section> sections = new LinkedHashMap<>();
        byHeading.forEach((h, body) -> {
            Map<String, Row> rows = rows(body);
            if (!rows.isEmpty()) {
                sections.put(h, new Section(h, rows, body));
            }
        });
        return sections;
    }

    /**
     * The run whose heading starts with the given word, such as "B" or "(C)"; in a file without it (a newer run of one
     * section), the first run with the variant.
     */
    static Section section(List<String> lines, String headingStart, String variant) {
        Map<String, Section> sections = sections(lines);
        return sections.values().stream().filter(s -> s.heading().equals(headingStart) || s.heading().startsWith(headingStart + " "))
                .findFirst().or(() -> sections.values().stream().filter(s -> s.rows().containsKey(variant)).findFirst())
                .orElseThrow(() -> new IllegalArgumentException("no run " + headingStart + " and none with " + variant));
    }

    private static Map<String, Row> rows(List<String> lines) {
        Map<String, double[]> throughput = new LinkedHashMap<>();
        Map<String, double[]> cpu = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            List<String> header = cells(lines.get(i));
            if (header.isEmpty() || !header.get(0).equals("variant")) {
                continue;
            }
            boolean steady = header.contains("steady rec/s");
            boolean tm = header.contains("TaskManager us/record");
            if (!steady && !tm) {
                continue;
            }
            String[] columns = steady
                    ? new String[] {"steady rec/s", "vs keyed", "vs byte"}
                    : new String[] {"TaskManager us/record", "keyed / this"};
            int j = i + 2; // past the |---| line
            for (; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                List<String> cells = cells(lines.get(j));
                double[] values = new double[columns.length];
                for (int c = 0; c < columns.length; c++) {
                    int at = header.indexOf(columns[c]);
                    values[c] = at < 0 ? NONE : number(cells.get(at));
                }
                (steady ? throughput : cpu).put(cells.get(0), values);
            }
            i = j;
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        throughput.forEach((variant, t) -> {
            double[] c = cpu.getOrDefault(variant, new double[] {NONE, NONE});
            rows.put(variant, new Row(variant, t[0], t[1], t[2], c[0], c[1]));
        });
        return rows;
    }

    private static List<String> cells(String line) {
        if (!line.startsWith("|")) {
            return List.of();
        }
        List<String> cells = new ArrayList<>();
        for (String cell : line.substring(1).split("\\|")) {
            cells.add(cell.trim());
        }
        return cells;
    }

    private static double number(String cell) {
        return cell.equals("n/a") || cell.isEmpty() ? NONE : Double.parseDouble(cell.replace(",", ""));
    }

    /** "dedup-rocksdb-restored-cache256m: the restored variant with --page-cache-bytes 256mb": variant to its settings. */
    static Map<String, String> variantSettings(List<String> lines) {
        Map<String, String> settings = new LinkedHashMap<>();
        Pattern p = Pattern.compile("^(\\S+): the restored variant with (.+)$");
        for (String line : lines) {
            Matcher m = p.matcher(line);
            if (m.matches()) {
                settings.put(m.group(1), m.group(2));
            }
        }
        return settings;
    }

    /** The impressions of the restored state, from the header's "history.csv: 20,000,000 rows" (or "50,000,000 history rows"). */
    static long impressionsInState(List<String> lines) {
        Pattern p = Pattern.compile("(\\d{1,3}(?:,\\d{3})+) (?:history )?rows");
        for (String line : lines) {
            Matcher m = p.matcher(line);
            if (line.startsWith("#") && m.find()) {
                return Long.parseLong(m.group(1).replace(",", ""));
            }
        }
        throw new IllegalArgumentException("no 'N rows' of history in the header");
    }

    /** The commit of --before-jar, from the header's "dedup-job.jar of [main] COMMIT"; null if none. */
    static String beforeCommit(List<String> lines) {
        Matcher m = Pattern.compile("dedup-job\\.jar of (?:main )?([0-9a-f]{7,40})").matcher(String.join("\n", lines));
        return m.find() ? m.group(1) : null;
    }

    /** AllowedLatenessStateCost's table: {format, backend, bytes per live unique} per row. */
    static List<String[]> stateBytes(List<String> lines) {
        // Header: "format lateness backend savepoint B live buckets live uniques B / live unique B / daily unique";
        // a row: "bloom 1d heap 4,886,169 4 1,600,324 3.05 12.21", bytes per live unique next to last.
        List<String[]> rows = new ArrayList<>();
        boolean inTable = false;
        for (String line : lines) {
            String[] words = line.trim().split("\\s+");
            if (words[0].equals("format") && line.contains("B / live unique")) {
                inTable = true;
            } else if (inTable && words.length >= 8) {
                rows.add(new String[] {words[0], words[2], words[words.length - 2]});
            }
        }
        return rows;
    }

    /** The checkpoint table of a run: variant to "bytes per output offset" of each round's run of the given size. */
    static Map<String, List<Double>> checkpointBytesPerOutput(List<String> lines, long size) {
        Map<String, List<Double>> perVariant = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : lines) {
            String[] cells = line.split("\t");
            if (cells[0].equals("variant") && line.contains("bytes per output offset")) {
                inTable = true;
            } else if (inTable && cells.length >= 7) {
                if (Long.parseLong(cells[1]) == size) {
                    perVariant.computeIfAbsent(cells[0], v -> new ArrayList<>()).add(Double.parseDouble(cells[6]));
                }
            } else {
                inTable = false;
            }
        }
        return perVariant;
    }

    // ---- names and helpers

    /** A variant's name for a reader: "dedup-fingerprints-rocksdb-before" is "job, fingerprints, RocksDB (build aed6530)". */
    static String label(String variant, String beforeCommit) {
        boolean before = variant.endsWith("-before");
        String v = before ? variant.substring(0, variant.length() - "-before".length()) : variant;
        String name = switch (v) {
            case "byte-pass-through" -> "byte pass-through";
            case "keyed-pass-through" -> "keyed pass-through";
            case "parse-pass-through" -> "parsing pass-through";
            case "exact-rocksdb" -> "exact keyed state, RocksDB";
            case "exact-hashmap" -> "exact keyed state, heap";
            case "sql-rocksdb" -> "Flink SQL, RocksDB";
            default -> v.startsWith("dedup-")
                    ? "job, " + formatLabel(v.contains("fingerprints") ? "fingerprints" : "bloom",
                            v.contains("rocksdb") ? "rocksdb" : "heap")
                    : v;
        };
        return before ? name + (beforeCommit == null ? " (before)" : " (build " + beforeCommit + ")") : name;
    }

    private static String formatLabel(String format, String backend) {
        return (format.equals("bloom") ? "Bloom" : format) + ", " + (backend.equals("rocksdb") ? "RocksDB" : "heap");
    }

    private static Double orNull(double v) {
        return Double.isNaN(v) ? null : v;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
