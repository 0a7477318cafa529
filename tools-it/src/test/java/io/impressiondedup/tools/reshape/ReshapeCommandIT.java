package io.impressiondedup.tools.reshape;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.reshape.ShardReshape;
import io.impressiondedup.tools.DedupTools;
import io.impressiondedup.tools.ToolEnvironment;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import io.impressiondedup.tools.savepoint.FingerprintState;
import io.impressiondedup.tools.savepoint.ShardEntry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.functions.StateBootstrapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReshapeCommandIT {

    @TempDir
    Path dir;

    /** The property the method rests on: with k times the shards, a request's new shard is a child of its old one. */
    @ParameterizedTest
    @CsvSource({"128,2", "128,3", "100,4", "7,5", "1,128"})
    void everyRequestsNewShardIsAChildOfItsOldShard(int shards, int factor) {
        Random random = new Random(shards * 31L + factor);
        for (int i = 0; i < 200_000; i++) {
            long digestHigh = random.nextLong();
            assertThat(FingerprintScheme.shardOf(digestHigh, shards * factor) / factor)
                    .isEqualTo(FingerprintScheme.shardOf(digestHigh, shards));
        }
        // and at the edges of the 32-bit range
        for (long top : new long[] {0, 1, 0xFFFF_FFFFL, 0x8000_0000L, 0x7FFF_FFFFL}) {
            long digestHigh = top << 32;
            assertThat(FingerprintScheme.shardOf(digestHigh, shards * factor) / factor)
                    .isEqualTo(FingerprintScheme.shardOf(digestHigh, shards));
        }
    }

    @Test
    void onlyAMultipleOrADivisorOfTheShardCountIsAccepted() {
        assertThat(ShardReshape.countRefusal(128, 256)).isNull();
        assertThat(ShardReshape.countRefusal(128, 384)).isNull();
        assertThat(ShardReshape.countRefusal(128, 128)).contains("nothing to do");
        assertThat(ShardReshape.countRefusal(128, 64)).as("a divisor: refused by content, if at all").isNull();
        assertThat(ShardReshape.countRefusal(128, 48)).contains("neither a multiple nor a divisor of the savepoint's 128 shards").contains("bootstrap");
        assertThat(ShardReshape.countRefusal(128, 200)).contains("neither a multiple nor a divisor of the savepoint's 128 shards");
    }

    /**
     * Run as users do (the verb's arguments): every child shard holds exactly its parent's entries, the operator state
     * says the new count and keeps the secret's check value and the watermark, and another operator's state (the Kafka
     * offsets, in a real savepoint) is carried over untouched.
     */
    @Test
    void eachNewShardGetsItsParentsStateAndOtherOperatorsKeepTheirs() throws Exception {
        int shards = 4;
        int maxParallelism = 4;
        List<ShardEntry> parents = entries(shards);
        String savepoint = dir.resolve("before").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(2);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(
                        env.fromData(parents), new ShardKeys(shards, maxParallelism), 99L, 1_700_000_000_000L,
                        "/requestId;/adId;/slot"))
                .withOperator(OTHER, OperatorTransformation.bootstrapWith(env.fromData(10L, 20L, 30L)).transform(new OffsetsWriter()))
                .write(savepoint);
        env.execute("write");

        String output = dir.resolve("after").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", savepoint, "--output", output, "--shards", "12",
            "--state-backend", "hashmap", "--parallelism", "2"}, new PrintStream(out), new PrintStream(err));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("from 4 to 12 shards").contains("--shards 12");

        DedupSavepoint reshaped = DedupSavepoint.open(output, new HashMapStateBackend());
        assertThat(reshaped.facts()).isEqualTo(new DedupSavepoint.Facts(12, maxParallelism, 99L, 1_700_000_000_000L, "/requestId;/adId;/slot"));
        Set<ShardEntry> expected = new HashSet<>();
        for (ShardEntry parent : parents) {
            for (int child = 0; child < 3; child++) {
                expected.add(parent.withShard(parent.shard * 3 + child));
            }
        }
        List<ShardEntry> children = new ArrayList<>();
        try (CloseableIterator<ShardEntry> it = reshaped.shardEntries(ToolEnvironment.create(2), new HashMapStateBackend())
                .executeAndCollect()) {
            it.forEachRemaining(children::add);
        }
        assertThat(children).hasSize(expected.size());
        assertThat(new HashSet<>(children)).isEqualTo(expected);

        List<Long> offsets = new ArrayList<>();
        try (CloseableIterator<Long> it = SavepointReader.read(ToolEnvironment.create(1), output, new HashMapStateBackend())
                .readListState(OTHER, OffsetsWriter.STATE, Types.LONG).executeAndCollect()) {
            it.forEachRemaining(offsets::add);
        }
        assertThat(offsets).containsExactlyInAnyOrder(10L, 20L, 30L);
    }

    @Test
    void aShardCountThatIsNotAMultipleIsRefusedNamingTheWayThatWorks() throws Exception {
        String savepoint = bloomSavepointOfFourShards();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", savepoint, "--output", dir.resolve("after").toString(),
            "--shards", "6", "--state-backend", "hashmap"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--shards 6 is neither a multiple nor a divisor of the savepoint's 4 shards")
                .contains("dedup-tools bootstrap --shards 6");
        assertThat(dir.resolve("after")).doesNotExist();
    }

    /**
     * A chain as an operator runs it (shrink for a quiet week, grow back, shrink further): 8 -> 2 -> 8 shards gives back
     * exactly the savepoint's dedup state, entry for entry (each part finer than the children goes back to the one child
     * that holds it), and 8 -> 4 after it still finds every impression with the same lookups as before.
     */
    @Test
    void aReshapeToFewerShardsAndBackGivesBackTheSameStateAndAChainKeepsEveryImpression() throws Exception {
        int maxParallelism = 8;
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(4_000).shards(8).fpp(0.01).stateFormat(StateFormat.FINGERPRINTS).build();
        FingerprintState state = new FingerprintState(plan);
        long day = 20_000;
        for (int i = 0; i < 6_000; i++) {
            state.insert("request-" + i, "ad-" + (i % 7), day * 86_400_000L + i * 20_000L);
        }
        String savepoint = dir.resolve("8").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(2);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(state.entries()),
                        new ShardKeys(8, maxParallelism), 0L, null, null))
                .write(savepoint);
        env.execute("write");

        String two = reshapeTo(savepoint, "8-2", 2);
        String eight = reshapeTo(two, "8-2-8", 8);
        assertThat(new HashSet<>(entriesOf(eight))).as("8 -> 2 -> 8: the same state").isEqualTo(new HashSet<>(state.entries()));
        String four = reshapeTo(eight, "8-2-8-4", 4);

        FingerprintState after = FingerprintState.of(plan.timeBuckets(), 4, entriesOf(four));
        assertThat(after.insertedTotal()).as("fingerprints held").isEqualTo(state.insertedTotal());
        for (int i = 0; i < 6_000; i++) {
            assertThat(after.holds("request-" + i, "ad-" + (i % 7), day * 86_400_000L + i * 20_000L)).as("impression %s", i).isTrue();
        }
        int freshBefore = 0;
        int freshAfter = 0;
        for (int i = 0; i < 20_000; i++) {
            freshBefore += state.holds("fresh-" + i, "ad", day * 86_400_000L) ? 1 : 0;
            freshAfter += after.holds("fresh-" + i, "ad", day * 86_400_000L) ? 1 : 0;
        }
        assertThat(freshAfter).as("fresh keys found after the chain, the same lookups as before it").isEqualTo(freshBefore);
    }

    /**
     * After 8 -> 4 shards a bucket's parts are halves of a shard; 3 times the shards would cut each half across two new
     * shards: refused before anything is written, naming the bucket and the counts that work.
     */
    @Test
    void aCountThatWouldCutAnEarlierReshapesPartsIsRefusedBeforeAnythingIsWritten() throws Exception {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(4_000).shards(8).fpp(0.01).stateFormat(StateFormat.FINGERPRINTS).build();
        FingerprintState state = new FingerprintState(plan);
        for (int i = 0; i < 500; i++) {
            state.insert("request-" + i, "ad", 20_000 * 86_400_000L);
        }
        String savepoint = dir.resolve("8").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), 24)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(state.entries()),
                        new ShardKeys(8, 24), 0L, null, null))
                .write(savepoint);
        env.execute("write");
        String four = reshapeTo(savepoint, "8-4", 4);

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", four, "--output", dir.resolve("8-4-12").toString(), "--shards", "12",
            "--state-backend", "hashmap"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--shards 12: bucket 20000 of shard").contains("holds cell")
                .contains("of 2 of its shard").contains("--shards 8").contains("Nothing was written");
        assertThat(dir.resolve("8-4-12")).doesNotExist();
    }

    private String reshapeTo(String savepoint, String name, int shards) {
        String output = dir.resolve(name).toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", savepoint, "--output", output, "--shards", Integer.toString(shards),
            "--state-backend", "hashmap", "--parallelism", "2"}, new PrintStream(out), new PrintStream(err));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return output;
    }

    private static List<ShardEntry> entriesOf(String savepoint) throws Exception {
        List<ShardEntry> read = new ArrayList<>();
        try (CloseableIterator<ShardEntry> it = DedupSavepoint.open(savepoint, new HashMapStateBackend())
                .shardEntries(ToolEnvironment.create(2), new HashMapStateBackend()).executeAndCollect()) {
            it.forEachRemaining(read::add);
        }
        return read;
    }

    @Test
    void fewerShardsAreRefusedNamingTheBloomBucketThatCannotBeMerged() throws Exception {
        String savepoint = bloomSavepointOfFourShards();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", savepoint, "--output", dir.resolve("after").toString(),
            "--shards", "2", "--state-backend", "hashmap"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--shards 2: bucket 2000").contains("is in the bloom format")
                .contains("--state-format fingerprints").contains("Nothing was written");
        assertThat(dir.resolve("after")).doesNotExist();
    }

    /** A savepoint of 4 shards holding Bloom buckets ({@link #entries}), max parallelism 4. */
    private String bloomSavepointOfFourShards() throws Exception {
        int shards = 4;
        String savepoint = dir.resolve("before").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), shards)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(
                        env.fromData(entries(shards)), new ShardKeys(shards, shards), 0L, null, null))
                .write(savepoint);
        env.execute("write");
        return savepoint;
    }

    @Test
    void aMissingShardCountIsABadCommandLineNamingTheOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", "x", "--output", "y"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--shards");
    }

    /** A failed reshape removes what it wrote at --output, so --output must not hold anything of the user's. */
    @Test
    void anOutputThatExistsIsABadCommandLineNamingTheOption() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("after"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"reshape", "--savepoint", dir.resolve("no-savepoint").toString(), "--output",
            dir.resolve("after").toString(), "--shards", "8"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--output " + dir.resolve("after") + " exists: give a new directory");
    }

    private static final OperatorIdentifier OTHER = OperatorIdentifier.forUid("kafka-source-standin");

    /** Another operator's list state, standing in for the Kafka source's offsets. */
    static final class OffsetsWriter extends StateBootstrapFunction<Long> {
        static final String STATE = "offsets";
        private transient ListState<Long> offsets;

        @Override
        public void processElement(Long offset, Context context) throws Exception {
            offsets.add(offset);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            offsets = context.getOperatorStateStore().getListState(new ListStateDescriptor<>(STATE, Types.LONG));
        }
    }

    /** A directory and a few page groups per shard, with distinct contents. */
    private static List<ShardEntry> entries(int shards) {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000).shards(shards).fpp(0.001).build();
        Random random = new Random(11);
        List<ShardEntry> entries = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            BucketFilters directory = new BucketFilters();
            directory.put(20_000 + shard, plan.newBucketFilter());
            entries.add(ShardEntry.directory(shard, directory));
            for (int page = 0; page < 2; page++) {
                PageGroup group = new PageGroup();
                long[] words = new long[8];
                for (int i = 0; i < words.length; i++) {
                    words[i] = random.nextLong();
                }
                group.put(20_000 + shard, 0, words);
                entries.add(ShardEntry.pageGroup(shard, PageAddress.pack(3, page), group));
            }
        }
        return entries;
    }
}
