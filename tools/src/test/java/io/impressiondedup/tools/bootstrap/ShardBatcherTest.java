package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ShardBatcherTest {

    @Test
    void everyImpressionLeavesOnceInABatchOfItsShardInTheOrderItCame() {
        int shards = 5;
        int batchSize = 16;
        ShardBatcher.Batches batches = new ShardBatcher.Batches(shards, batchSize);
        Random random = new Random(7);
        List<List<Long>> sent = new ArrayList<>();
        List<List<Long>> received = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            sent.add(new ArrayList<>());
            received.add(new ArrayList<>());
        }
        List<HistoryBatch> out = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            int shard = random.nextInt(shards - 1); // the last shard gets nothing
            sent.get(shard).add(i);
            HistoryBatch full = batches.add(new HistoryImpression(shard, i, i * 3, i * 5, i * 7, i * 11));
            if (full != null) {
                assertThat(full.size).isEqualTo(batchSize);
                out.add(full);
            }
        }
        int full = out.size();
        batches.drain(out::add);
        assertThat(out.size() - full).as("the batches left open at the end").isEqualTo(shards - 1);

        for (HistoryBatch batch : out) {
            assertThat(batch.eventTime).as("columns as long as the batch: all of them are shuffled").hasSize(batch.size);
            for (int j = 0; j < batch.size; j++) {
                long i = batch.eventTime[j];
                assertThat(new long[] {batch.digestHigh[j], batch.digestLow[j], batch.adIdHash[j], batch.keyedAdIdHash[j]})
                        .containsExactly(i * 3, i * 5, i * 7, i * 11);
                received.get(batch.shard).add(i);
            }
        }
        assertThat(received).isEqualTo(sent);
        List<HistoryBatch> none = new ArrayList<>();
        batches.drain(none::add);
        assertThat(none).as("a second drain").isEmpty();
    }
}
