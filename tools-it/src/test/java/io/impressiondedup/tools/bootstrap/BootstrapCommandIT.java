package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.OptionSources;
import io.impressiondedup.job.config.PlanOptions;
import io.impressiondedup.operators.dedup.store.FormatStores;
import io.impressiondedup.operators.dedup.store.ShardFilters;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.tools.DedupTools;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.FingerprintState;
import io.impressiondedup.tools.savepoint.HeapMapState;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootstrapCommandIT {

    private static final int SHARDS = 8;
    private static final long NEWEST = Instant.parse("2026-11-22T18:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    /**
     * A file of rows becomes, shard for shard and page for page, the state the operator's insert code builds from the
     * same impressions with the same plan and secret: copies inserted once, rows of buckets dropped at --as-of skipped,
     * bad rows counted and reported by line.
     */
    @Test
    void aFileOfRowsBecomesTheStateTheOperatorBuildsFromTheSameImpressions() throws Exception {
        Path secretFile = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123456789abcdef\n");
        FingerprintSecret secret = FingerprintSecret.read(secretFile);
        List<String> lines = new ArrayList<>(List.of("requestId,adId,timestamp"));
        List<String[]> kept = new ArrayList<>();
        Random random = new Random(17);
        for (int i = 0; i < 600; i++) {
            long time = NEWEST - random.nextLong(Duration.ofDays(2).toMillis());
            String[] row = {"req-" + i, "ad-" + random.nextInt(5), i % 2 == 0 ? Long.toString(time) : Instant.ofEpochMilli(time).toString()};
            kept.add(row);
            lines.add(String.join(",", row));
            if (i % 6 == 0) {
                lines.add(String.join(",", row)); // a copy, same time: inserted once
            }
        }
        lines.add("req-x,ad-1," + NEWEST); // the newest row: the default --as-of
        kept.add(new String[] {"req-x", "ad-1", Long.toString(NEWEST)});
        for (int i = 0; i < 20; i++) { // 4 days and more before: their bucket is dropped at --as-of
            lines.add("old-" + i + ",ad-1," + (NEWEST - Duration.ofDays(4).toMillis() - i * 1000L));
        }
        lines.add(lines.size() / 2, "req-bad,ad-1");
        int badLine = lines.size() / 2 + 1;
        Path history = Files.write(dir.resolve("history.csv"), lines, StandardCharsets.UTF_8);
        String output = dir.resolve("savepoint").toString();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output", output,
                "--capacity", "2000", "--fpp", "0.000001", "--shards", String.valueOf(SHARDS), "--max-parallelism", "8",
                "--state-backend", "hashmap", "--fingerprint-secret-file", secretFile.toString(), "--parallelism", "2"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        String summary = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(summary).containsPattern("rows read +722\n").containsPattern("inserted +601\n")
                .containsPattern("duplicates \\(skipped\\) +100 ").containsPattern("expired \\(skipped\\) +20 ")
                .containsPattern("bad \\(skipped\\) +1\n").contains("line " + badLine + ": expected 3 fields");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--as-of " + Instant.ofEpochMilli(NEWEST))
                .as("the last progress line: the writers took every row to write")
                .contains("bootstrap: 722 rows read: 701 to write (701 written), 20 expired at --as-of, 1 bad");

        DedupSavepoint savepoint = DedupSavepoint.open(output, new HashMapStateBackend());
        assertThat(savepoint.facts()).isEqualTo(new DedupSavepoint.Facts(SHARDS, 8, secret.checkValue(), null, null));
        Set<ShardEntry> written = new HashSet<>();
        try (CloseableIterator<ShardEntry> it = savepoint.shardEntries(ToolEnvironment.create(1), new HashMapStateBackend()).executeAndCollect()) {
            it.forEachRemaining(written::add);
        }
        assertThat(contents(written)).isEqualTo(contents(expectedState(kept, secretFile)));
    }

    /**
     * With {@code --state-format fingerprints} the tool writes fingerprint sections directly: exactly the buckets and pages
     * the operator's own insert builds from the same rows (on plan the sections do not depend on the rows' order), and
     * no Bloom page.
     */
    @Test
    void withTheFingerprintFormatAFileOfRowsBecomesTheOperatorsFingerprintSections() throws Exception {
        List<String> lines = new ArrayList<>(List.of("requestId,adId,timestamp"));
        Random random = new Random(23);
        DedupPlan plan = PlanOf.args("--capacity", "20000", "--shards", String.valueOf(SHARDS), "--max-parallelism", "8",
                "--state-format", "fingerprints");
        FingerprintState expected = new FingerprintState(plan);
        for (int i = 0; i < 3_000; i++) {
            long time = NEWEST - random.nextLong(Duration.ofDays(2).toMillis());
            String adId = "ad-" + random.nextInt(5);
            lines.add("req-" + i + "," + adId + "," + time);
            expected.insert("req-" + i, adId, time);
        }
        Path history = Files.write(dir.resolve("history.csv"), lines, StandardCharsets.UTF_8);
        String output = dir.resolve("savepoint").toString();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output", output,
                "--capacity", "20000", "--shards", String.valueOf(SHARDS), "--max-parallelism", "8", "--state-format", "fingerprints",
                "--state-backend", "hashmap", "--parallelism", "2"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();

        List<ShardEntry> written = new ArrayList<>();
        try (CloseableIterator<ShardEntry> it = DedupSavepoint.open(output, new HashMapStateBackend())
                .shardEntries(ToolEnvironment.create(1), new HashMapStateBackend()).executeAndCollect()) {
            it.forEachRemaining(written::add);
        }
        assertThat(written).as("Bloom page groups").noneMatch(e -> !e.isDirectory() && !e.fingerprintPage);
        assertThat(new HashSet<>(written)).isEqualTo(new HashSet<>(expected.entries()));
    }

    /**
     * A history whose rows crowd into one shard (a request id with thousands of ad ids) is written whole. Batch mode's
     * adaptive scheduler would hand the writer subtasks key-group ranges balanced by data volume, not the even ranges the
     * State Processor API's writers assume: 20,000 rows of shard 0 against 64 rows spread over the other 127 shards moved
     * the boundary and failed the run with "Key group 91 is not in KeyGroupRange{startKeyGroup=0, endKeyGroup=63}".
     */
    @Test
    void aHistoryCrowdedIntoOneShardIsWrittenWhole() throws Exception {
        RequestIdDigester digester = new RequestIdDigester();
        String crowded = null;
        for (int i = 0; crowded == null; i++) {
            digester.digest("crowded-" + i);
            crowded = FingerprintScheme.shardOf(digester.high(), 128) == 0 ? "crowded-" + i : null;
        }
        List<String> lines = new ArrayList<>(List.of("requestId,adId,timestamp"));
        int rows = 0;
        for (int ad = 0; ad < 20_000; ad++, rows++) {
            lines.add(crowded + ",ad-" + ad + "," + (NEWEST - ad * 1_000L));
        }
        for (int request = 0; request < 64; request++, rows++) {
            lines.add("req-" + request + ",ad-1," + (NEWEST - request * 1_000L));
        }
        Path history = Files.write(dir.resolve("crowded.csv"), lines, StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output", dir.resolve("savepoint").toString(),
                "--capacity", "10000000", "--fpp", "0.000001", "--state-backend", "hashmap", "--parallelism", "2"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // On plan (at most 20k of 78k per shard and bucket, FPP 1e-6 at full plan): expected false positives below 0.02.
        assertThat(out.toString(StandardCharsets.UTF_8)).containsPattern("inserted +" + String.format(java.util.Locale.ROOT, "%,d", rows) + "\n");
    }

    /**
     * A compressed history is read whole by one subtask (a compressed stream is read from its start), a plain one in parts by
     * both: the same rows, counts and line numbers either way.
     */
    @Test
    void aCompressedHistoryIsReadWholeAndCountedAsThePlainOne() throws Exception {
        StringBuilder rows = new StringBuilder("requestId,adId,timestamp\n");
        for (int i = 0; i < 3_000; i++) {
            rows.append("req-").append(i).append(",ad-").append(i % 5).append(',').append(NEWEST - i * 1_000L).append('\n');
            if (i == 1_500) {
                rows.append("req-bad,ad-1\n"); // line 1,503
            }
        }
        byte[] plain = rows.toString().getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
            out.write(plain);
        }
        List<String> summaries = new ArrayList<>();
        for (Path history : List.of(Files.write(dir.resolve("history.csv"), plain), Files.write(dir.resolve("history.csv.gz"), gz.toByteArray()))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output",
                    dir.resolve("savepoint-" + history.getFileName()).toString(), "--capacity", "100000", "--state-backend", "hashmap",
                    "--parallelism", "2"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            String summary = out.toString(StandardCharsets.UTF_8);
            assertThat(summary).as(history.toString()).containsPattern("rows read +3,001\n").containsPattern("bad \\(skipped\\) +1\n")
                    .contains("line 1503: expected 3 fields");
            summaries.add(summary.substring(summary.indexOf("rows read")));
        }
        assertThat(summaries.get(1)).isEqualTo(summaries.get(0));
    }

    @Test
    void withoutAHistorySourceTheCommandLineIsRejectedNamingBothOptions() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--output", dir.resolve("sp").toString(), "--capacity", "10"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from-file").contains("--from-topic");
    }

    @Test
    void aTopicHistoryTakesTheJobsInputFormatOptionsAndTheirChecks() {
        // Accepted (not "unknown option"), and checked as the job checks them, before any broker is asked.
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-topic", "impressions", "--bootstrap-servers", "localhost:1",
                "--output", dir.resolve("sp").toString(), "--capacity", "10", "--input-format", "avro"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--input-format avro needs --avro-schema-file");
    }

    @Test
    void aHistoryFileThatIsNotThereIsRejectedNamingTheOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", dir.resolve("missing.csv").toString(), "--output",
                dir.resolve("sp").toString(), "--capacity", "10"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from-file " + dir.resolve("missing.csv") + ": no such file");
    }

    @Test
    void aFileOfWhichNoRowCanBeReadFailsAndLeavesNoSavepoint() throws Exception {
        Path history = Files.write(dir.resolve("wrong.csv"), List.of("r1;ad1;1763805600000", "r2;ad1;1763805600000"));
        Path output = dir.resolve("savepoint");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output", output.toString(),
                "--capacity", "100", "--shards", "4", "--max-parallelism", "4", "--as-of", "2025-11-22T10:00:00Z", "--parallelism", "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
        assertThat(exit).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("line 1: expected 3 fields", "line 2: expected 3 fields");
        assertThat(output).doesNotExist();
    }

    /** The shard entries the operator's insert code builds from {@code rows} in their order, with the test's plan. */
    private static Set<ShardEntry> expectedState(List<String[]> rows, Path secretFile) throws Exception {
        DedupPlan plan = PlanOf.args("--capacity", "2000", "--fpp", "0.000001", "--shards", String.valueOf(SHARDS),
                "--max-parallelism", "8", "--state-backend", "hashmap", "--fingerprint-secret-file", secretFile.toString());
        assertThat(plan.fingerprintScheme().adIdsKeyed()).as("a job with a secret creates keyed filters").isTrue();
        FingerprintSecret secret = FingerprintSecret.read(secretFile);
        ShardFilters filters = new ShardFilters(plan);
        TimeBuckets buckets = plan.timeBuckets().copy();
        RequestIdDigester digester = new RequestIdDigester(secret);
        Map<Integer, BucketFilters> directories = new HashMap<>();
        Map<Integer, HeapMapState<PageGroup>> pages = new HashMap<>();
        for (String[] row : rows) {
            long time = HistoryRowParser.eventTime(row[2]);
            digester.digest(row[0]);
            int shard = FingerprintScheme.shardOf(digester.high(), SHARDS);
            BucketFilters directory = directories.computeIfAbsent(shard, s -> new BucketFilters());
            // A Bloom plan: the fingerprint pages are never read.
            FormatStores stores = FormatStores.uncached(pages.computeIfAbsent(shard, s -> new HeapMapState<>(new HashMap<>())), null, plan, SHARDS);
            filters.beginRecord(digester.high(), digester.low(), HashMixing.adIdHash(row[1]), secret.keyedAdIdHash(row[1]));
            stores.beginRecord(shard);
            if (filters.bucketHolding(directory, stores, time, false, Long.MIN_VALUE) == TimeBuckets.NO_BUCKET) {
                filters.insert(directory, stores, buckets.bucketOf(time));
            }
        }
        Set<ShardEntry> entries = new HashSet<>();
        directories.forEach((shard, directory) -> entries.add(ShardEntry.directory(shard, directory)));
        pages.forEach((shard, state) -> state.map.forEach((address, group) -> entries.add(ShardEntry.pageGroup(shard, address, group))));
        return entries;
    }

    /**
     * What entries hold, independent of the order impressions were inserted in: each shard's directory, and each sub-page
     * (shard, page address, bucket, layer) with its words. (A page group lists its sub-pages in the order they were first
     * written, and the savepoint writer meets a shard's rows in another order than the file's.)
     */
    private static Map<String, Object> contents(Set<ShardEntry> entries) {
        Map<String, Object> contents = new HashMap<>();
        for (ShardEntry entry : entries) {
            if (entry.isDirectory()) {
                contents.put("shard " + entry.shard, entry.directory());
                continue;
            }
            PageGroup group = entry.pageGroup();
            for (int i = 0; i < group.size(); i++) {
                long[] words = group.find(group.bucketAt(i), group.layerAt(i));
                contents.put("shard " + entry.shard + " page " + entry.address + " bucket " + group.bucketAt(i) + " layer "
                        + group.layerAt(i), java.util.Arrays.toString(words));
            }
        }
        return contents;
    }

    /** The job's plan of arguments, as the job and the command build it. */
    private static final class PlanOf {
        static DedupPlan args(String... args) {
            List<ConfigOption<?>> accepted = new ArrayList<>(DedupJobOptions.PLAN);
            accepted.add(DedupJobOptions.FINGERPRINT_SECRET_FILE);
            return PlanOptions.plan(Configuration.fromMap(OptionSources.fromArguments(args, accepted, false)));
        }
    }
}
