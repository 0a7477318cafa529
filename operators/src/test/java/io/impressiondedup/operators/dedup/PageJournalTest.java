package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The page journal ({@code PageJournal}): a checkpoint of a shard whose inserts are spread over many pages writes the
 * inserts, not the pages, and a restore from it redoes them, so no copy of a stored impression passes; a shard whose pages
 * take many inserts writes its pages; a savepoint holds no journal; an expiry takes the journal of its shard with it.
 * On both backends, both formats, with the page cache on (the journal exists only behind it).
 */
class PageJournalTest {

    private static final int IMPRESSIONS = 3_000;

    static Stream<Arguments> backendsAndFormats() {
        List<Arguments> all = new ArrayList<>();
        for (Backend backend : Backend.values()) {
            for (StateFormat format : StateFormat.values()) {
                all.add(Arguments.of(backend, format));
            }
        }
        return all.stream();
    }

    /** A plan of {@code capacity} a day over 128 shards in {@code format}, with a 64 MiB page cache. */
    private static DedupSettings settings(long capacity, StateFormat format) {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(capacity).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                .stateFormat(format).build();
        return DedupSettings.builder().plan(plan).pageCacheBytes(64L << 20).build();
    }

    /** 3,000 impressions over a million a day: about 23 a shard, nearly each on a page of its own. */
    private static DedupSettings sparse(StateFormat format) {
        return settings(1_000_000, format);
    }

    private static void processFirsts(DedupHarness h, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            h.process(impression("r" + i, "a", T0 + HOUR + i));
        }
    }

    /** Copies of impressions {@code [from, to)}, re-sent with later timestamps of the same day. */
    private static void processCopies(DedupHarness h, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            h.process(impression("r" + i, "a", T0 + 5 * HOUR + i));
        }
    }

    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void aCheckpointOfSparseInsertsHoldsTheirJournalAndARestoreRedoesIt(Backend backend, StateFormat format) throws Exception {
        OperatorSubtaskState checkpoint;
        try (DedupHarness h = DedupHarness.open(sparse(format), backend)) {
            processFirsts(h, 0, IMPRESSIONS);
            checkpoint = h.snapshot(1);
            assertThat(h.shardsWithJournal()).as("shards whose pages the checkpoint left to the journal")
                    .isEqualTo(DedupHarness.MAX_PARALLELISM);
            if (format == StateFormat.BLOOM) {
                assertThat(h.storedPageGroups()).as("page groups written").isZero();
            }
        }
        try (DedupHarness h = DedupHarness.open(sparse(format), backend, 1, 0, checkpoint)) {
            processCopies(h, 0, IMPRESSIONS);
            assertThat(h.emitted()).as("copies that passed").isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(IMPRESSIONS);
        }
    }

    /**
     * What a journaled insert costs in the checkpoint, beside its shard's group header once (JournalValues): a Bloom
     * insert both probe hashes (16 B); a fingerprint insert its share of the Elias-Fano section of its shard's c inserts,
     * values {@code page m + value} below U = P R (P pages, R the band's value range): at most {@code c (log2(U / c) + 3)}
     * bits, and over S shards holding N inserts in all at most {@code N (log2(U S / N) + 3)} bits (the sum is concave in
     * each c), plus a word of padding and the header of each shard.
     */
    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void aJournaledInsertTakesWhatItsFormatNeedsToRedoIt(Backend backend, StateFormat format) throws Exception {
        try (DedupHarness h = DedupHarness.open(sparse(format), backend)) {
            processFirsts(h, 0, IMPRESSIONS);
            h.snapshot(1);
            int shards = DedupHarness.MAX_PARALLELISM;
            int n = h.emitted().size();
            if (format == StateFormat.BLOOM) {
                long perShard = 1 + Long.BYTES + 1 + 1 + 1 + 1; // version; bucket, format, layer 0, coding; the count
                assertThat((double) (h.journalBytes() - shards * perShard) / n).as("journal bytes per Bloom insert")
                        .isEqualTo(16.0);
            } else {
                FingerprintStoreSizing sizing = FingerprintStoreSizing.forPlan(sparse(format).plan());
                double u = (double) sizing.pages() * sizing.valueRange(0);
                long header = 1 + Long.BYTES + 1 + 1 + 1 + varintBytes(sizing.valueRange(0)) + varintBytes(n) + 1
                        + varintBytes(3L * n);
                double most = (shards * (header + Long.BYTES) + n * (Math.log(u * shards / n) / Math.log(2) + 3) / 8) / n;
                assertThat(most).as("the bound for this plan").isLessThan(5.0);
                assertThat((double) h.journalBytes() / n).as("journal bytes per fingerprint insert").isLessThanOrEqualTo(most);
            }
        }
    }

    private static int varintBytes(long value) {
        return Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
    }

    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void journalsOfSeveralCheckpointsAndOfARestoredRunAreAllRedone(Backend backend, StateFormat format) throws Exception {
        OperatorSubtaskState checkpoint;
        try (DedupHarness h = DedupHarness.open(sparse(format), backend)) {
            processFirsts(h, 0, 1_000);
            h.snapshot(1);
            processFirsts(h, 1_000, 2_000);
            checkpoint = h.snapshot(2);
        }
        OperatorSubtaskState second;
        try (DedupHarness h = DedupHarness.open(sparse(format), backend, 1, 0, checkpoint)) {
            processFirsts(h, 2_000, IMPRESSIONS);
            second = h.snapshot(3); // the redone pages are still dirty: their entries must stay in this checkpoint
            assertThat(h.shardsWithJournal()).isEqualTo(DedupHarness.MAX_PARALLELISM);
        }
        try (DedupHarness h = DedupHarness.open(sparse(format), backend, 1, 0, second)) {
            processCopies(h, 0, IMPRESSIONS);
            assertThat(h.emitted()).as("copies that passed").isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(IMPRESSIONS);
        }
    }

    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void aShardWhosePagesTakeManyInsertsWritesItsPages(Backend backend, StateFormat format) throws Exception {
        DedupSettings dense = settings(20_000, format); // about 156 a shard, on one or two pages
        OperatorSubtaskState checkpoint;
        try (DedupHarness h = DedupHarness.open(dense, backend)) {
            processFirsts(h, 0, 10_000);
            checkpoint = h.snapshot(1);
            assertThat(h.shardsWithJournal()).as("shards that journaled instead of writing a page").isZero();
        }
        try (DedupHarness h = DedupHarness.open(dense, backend, 1, 0, checkpoint)) {
            processCopies(h, 0, 10_000);
            assertThat(h.emitted()).as("copies that passed").isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(10_000);
        }
    }

    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void aSavepointWritesEveryPageAndNoJournal(Backend backend, StateFormat format) throws Exception {
        OperatorSubtaskState savepoint;
        try (DedupHarness h = DedupHarness.open(sparse(format), backend)) {
            processFirsts(h, 0, 2_000);
            h.snapshot(1);
            assertThat(h.shardsWithJournal()).isEqualTo(DedupHarness.MAX_PARALLELISM);
            processFirsts(h, 2_000, IMPRESSIONS);
            savepoint = h.savepoint(2);
            assertThat(h.shardsWithJournal()).as("shards with a journal in the savepoint").isZero();
        }
        try (DedupHarness h = DedupHarness.open(sparse(format), backend, 1, 0, savepoint)) {
            assertThat(h.shardsWithJournal()).isZero();
            processCopies(h, 0, IMPRESSIONS);
            assertThat(h.emitted()).as("copies that passed").isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(IMPRESSIONS);
        }
    }

    @ParameterizedTest
    @MethodSource("backendsAndFormats")
    void aBucketsExpiryWritesItsShardsPagesAndClearsTheirJournal(Backend backend, StateFormat format) throws Exception {
        DedupSettings settings = sparse(format);
        long firstDayExpires = settings.plan().timeBuckets().expiryOf(settings.plan().timeBuckets().bucketOf(T0));
        OperatorSubtaskState checkpoint;
        try (DedupHarness h = DedupHarness.open(settings, backend)) {
            processFirsts(h, 0, IMPRESSIONS);
            h.snapshot(1);
            for (int i = 0; i < IMPRESSIONS; i++) { // the next day's bucket, also journaled
                h.process(impression("n" + i, "a", T0 + DAY + HOUR + i));
            }
            h.snapshot(2);
            h.watermark(firstDayExpires);
            assertThat(h.counter(DedupMetrics.BUCKETS_EXPIRED)).isPositive();
            assertThat(h.shardsWithJournal()).as("journals left after every shard's pages were written at the expiry").isZero();
            checkpoint = h.snapshot(3);
        }
        try (DedupHarness h = DedupHarness.open(settings, backend, 1, 0, checkpoint)) {
            for (int i = 0; i < IMPRESSIONS; i++) {
                h.process(impression("n" + i, "a", T0 + DAY + 5 * HOUR + i));
            }
            assertThat(h.emitted()).as("copies of the next day's impressions that passed").isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).as("copies found (late: the watermark restored is past the day)")
                    .isEqualTo(IMPRESSIONS);
        }
    }
}
