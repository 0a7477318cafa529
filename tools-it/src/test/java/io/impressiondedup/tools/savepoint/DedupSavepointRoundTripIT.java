package io.impressiondedup.tools.savepoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.tools.ToolEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DedupSavepointRoundTripIT {

    @TempDir
    Path dir;

    /** Shard entries written by the tools' savepoint writer come back byte for byte, with the operator state's facts. */
    @Test
    void entriesAndFactsWrittenToASavepointReadBackUnchangedOnBothBackends() throws Exception {
        int shards = 16;
        int maxParallelism = 8;
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(10_000).shards(shards).fpp(0.001).build();
        List<ShardEntry> written = new ArrayList<>();
        Random random = new Random(7);
        for (int shard = 0; shard < shards; shard += 3) {
            BucketFilters directory = new BucketFilters();
            directory.put(20_000, plan.newBucketFilter());
            directory.put(20_001, plan.newBucketFilter());
            written.add(ShardEntry.directory(shard, directory));
            for (int page = 0; page < 3; page++) {
                PageGroup group = new PageGroup();
                long[] words = new long[8];
                for (int i = 0; i < words.length; i++) {
                    words[i] = random.nextLong();
                }
                group.put(20_000, 0, words);
                written.add(ShardEntry.pageGroup(shard, PageAddress.pack(7, page * 5 + shard), group));
            }
        }
        String savepoint = dir.resolve("savepoint").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(2);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(
                        env.fromData(written), new ShardKeys(shards, maxParallelism), 42L, 1_700_000_000_000L,
                        "/imp/requestId;/imp/adId"))
                .write(savepoint);
        env.execute("write");

        for (var backend : List.of(new HashMapStateBackend(), new EmbeddedRocksDBStateBackend())) {
            DedupSavepoint read = DedupSavepoint.open(savepoint, backend);
            assertThat(read.facts()).isEqualTo(new DedupSavepoint.Facts(shards, maxParallelism, 42L, 1_700_000_000_000L,
                    "/imp/requestId;/imp/adId"));
            List<ShardEntry> entries = new ArrayList<>();
            StreamExecutionEnvironment readEnv = ToolEnvironment.create(2);
            try (CloseableIterator<ShardEntry> it = read.shardEntries(readEnv, backend).executeAndCollect()) {
                it.forEachRemaining(entries::add);
            }
            assertThat(new HashSet<>(entries)).isEqualTo(new HashSet<>(written));
            assertThat(entries).hasSameSizeAs(written);
        }
    }

    /**
     * State whose operator state says a page journal holds some shards' last changes (a retained checkpoint of the job)
     * is refused by every tool, naming the journal and the savepoint to take: its pages are not complete.
     */
    @Test
    void aCheckpointHoldingPageJournalsIsRefusedNamingThem() throws Exception {
        int shards = 16;
        int maxParallelism = 8;
        String checkpoint = dir.resolve("checkpoint").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(2);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), maxParallelism)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.transformation(env.fromData(0, 1, 2),
                        new ShardKeys(shards, maxParallelism), shard -> shard, new JournaledShardsWriter(shards, 3)))
                .write(checkpoint);
        env.execute("write");

        assertThatThrownBy(() -> DedupSavepoint.open(checkpoint, new HashMapStateBackend()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is a checkpoint whose last page changes in 6 shards are held in the dedup operator's page journal")
                .hasMessageContaining("flink stop --savepointPath");
    }

    /** Writes no keyed state, and the operator state of a checkpoint whose every subtask holds {@code journaled} journals. */
    private static final class JournaledShardsWriter extends DedupStateWriter<Integer> {

        private static final long serialVersionUID = 1L;
        private final int journaled;

        JournaledShardsWriter(int shards, int journaled) {
            super(shards, 0L, null, null);
            this.journaled = journaled;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            super.initializeState(context);
            context.getOperatorStateStore().getUnionListState(DedupStateLayout.journaledShards()).update(List.of(journaled));
        }

        @Override
        public void processElement(Integer shard, Context context) {}
    }
}
