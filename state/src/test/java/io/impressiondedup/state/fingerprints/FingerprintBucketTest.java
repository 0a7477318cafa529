package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FingerprintBucketTest {

    private static final FingerprintScheme SCHEME = FingerprintScheme.withKeyBits(64);
    private static final FingerprintStoreSizing SIZING = new FingerprintStoreSizing(10, 0.01, 3, 2);
    /** Room for any band. */
    private static final long UNBOUNDED = Long.MAX_VALUE;

    @Test
    void anInsertOpensTheNextBandExactlyWhenThePartHoldsItsPlanThenTwiceThenFourTimes() {
        FingerprintPart part = FingerprintPart.whole(SCHEME, SIZING);
        List<Integer> grewAt = new ArrayList<>();
        for (int held = 0; held < 45; held++) {
            int band = part.bandForInsert(UNBOUNDED);
            assertThat(band).as("band of the insert at %s held", held).isEqualTo(SIZING.bandFor(held));
            assertThat(part.needsGrowthRoom()).as("at %s held", held).isEqualTo(held == 10 || held == 20 || held == 40);
            if (part.recordInsert(band) == Insertion.GREW) {
                grewAt.add(held);
            }
        }
        assertThat(grewAt).containsExactly(10, 20, 40);
        assertThat(part.inserted()).isEqualTo(45);
        assertThat(part.loadFactor()).isEqualTo(4.5);
        assertThat(part.growthBytes()).as("bands 1 to 3 open, each counted full")
                .isEqualTo(SIZING.bandGrowthBytes(1) + SIZING.bandGrowthBytes(2) + SIZING.bandGrowthBytes(3));
    }

    @Test
    void aBandThatWouldTakeTheShardPastItsGrowthAllowanceSendsInsertsToTheOverflowBandUntilThereIsRoom() {
        FingerprintPart part = new FingerprintPart(SCHEME, SIZING, 0, 1, 10, 0); // band 0 full
        long band1 = SIZING.bandGrowthBytes(1);
        assertThat(part.bandForInsert(band1 - 1)).as("one byte short").isEqualTo(FingerprintStoreSizing.OVERFLOW_BAND);
        assertThat(part.recordInsert(FingerprintStoreSizing.OVERFLOW_BAND)).isEqualTo(Insertion.OVER_FILLED);
        assertThat(part.inserted()).as("held at the band's threshold").isEqualTo(10);
        assertThat(part.overflowed()).isEqualTo(1);
        assertThat(part.needsGrowthRoom()).as("asks again at the next insert").isTrue();
        assertThat(part.bandForInsert(band1)).as("exactly the band's bytes left").isEqualTo(1);
        assertThat(part.recordInsert(1)).isEqualTo(Insertion.GREW);
        assertThat(part.needsGrowthRoom()).as("an open band fills without asking").isFalse();
        assertThat(part.bandForInsert(0)).isEqualTo(1);
    }

    /** Inserts {@code count} values one by one as the operator does, the part's growth within {@code growthAllowance}. */
    private static FingerprintPart insertedOneByOne(long count, long growthAllowance) {
        FingerprintPart part = FingerprintPart.whole(SCHEME, SIZING);
        for (long i = 0; i < count; i++) {
            part.recordInsert(part.bandForInsert(part.needsGrowthRoom() ? growthAllowance - part.growthBytes() : 0));
        }
        return part;
    }

    @Test
    void aPartFilledToACountHasTheCountsThatInsertingThatManyLeaves() {
        long bands1To2 = SIZING.bandGrowthBytes(1) + SIZING.bandGrowthBytes(2);
        for (long count : new long[] {0, 1, 9, 10, 11, 25, 40, 41, 1000}) {
            for (long allowance : new long[] {UNBOUNDED, bands1To2, bands1To2 - 1, 0}) {
                FingerprintPart filled = FingerprintPart.filledTo(SCHEME, SIZING, count, allowance);
                assertThat(filled).as("%s inserts, %s bytes for growth", count, allowance).isEqualTo(insertedOneByOne(count, allowance));
            }
        }
        FingerprintPart capped = FingerprintPart.filledTo(SCHEME, SIZING, 25, 0);
        assertThat(capped.inserted()).isEqualTo(10);
        assertThat(capped.overflowed()).isEqualTo(15);
        for (long held = 0; held <= 25; held++) {
            assertThat(capped.estimatedFppAfter(held)).as("after %s", held)
                    .isEqualTo(FingerprintPart.filledTo(SCHEME, SIZING, held, 0).estimatedFpp());
        }
        assertThat(capped.estimatedFppAfter(0)).isZero();
    }

    /**
     * Past its last band a part overflows whatever room the shard has, and each distinct overflow value adds {@code 1 /
     * (P U_ov)} to its FPP, up to 1 when every value is taken.
     */
    @Test
    void pastTheLastBandEveryInsertOverflowsAndTheFppRisesLinearlyToOne() {
        long lastBandEnd = 10L << SIZING.maxBand();
        FingerprintPart part = new FingerprintPart(SCHEME, SIZING, 0, 1, lastBandEnd - 1, 0);
        assertThat(part.bandForInsert(UNBOUNDED)).as("the last entry the last band is sized for").isEqualTo(SIZING.maxBand());
        part.recordInsert(SIZING.maxBand());
        assertThat(part.estimatedFpp()).isLessThan(0.01 / 3);
        assertThat(part.bandForInsert(UNBOUNDED)).as("one past it").isEqualTo(FingerprintStoreSizing.OVERFLOW_BAND);
        long slots = (long) SIZING.pages() * SIZING.overflowRange();
        double atEnd = part.estimatedFpp();
        assertThat(new FingerprintPart(SCHEME, SIZING, 0, 1, lastBandEnd, slots / 2).estimatedFpp() - atEnd)
                .isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(new FingerprintPart(SCHEME, SIZING, 0, 1, lastBandEnd, slots).estimatedFpp()).isEqualTo(1.0);
    }

    /** The cell of a record is the k-th part of its shard's digest range: the same as the shard at k times the count. */
    @Test
    void aRecordsCellIsItsShardUnderKTimesTheShardsModK() {
        Random random = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long digestHigh = random.nextLong();
            int shards = 1 + random.nextInt(300);
            int cells = 1 + random.nextInt(9);
            assertThat(FingerprintPart.cellOf(digestHigh, shards, cells)).isEqualTo(
                    FingerprintScheme.shardOf(digestHigh, shards * cells) - cells * FingerprintScheme.shardOf(digestHigh, shards));
        }
    }

    @Test
    void eachRecordMeetsThePartOfItsCellAndACellWithoutOneGetsANewPartAtTheFinestCellCount() {
        FingerprintPart quarter1 = new FingerprintPart(SCHEME, SIZING, 1, 4, 5, 0);
        FingerprintPart half1 = new FingerprintPart(SCHEME, SIZING, 1, 2, 7, 0);
        FingerprintBucket bucket = new FingerprintBucket(List.of(half1, quarter1));
        assertThat(bucket.parts()).as("ordered by cell").containsExactly(quarter1, half1);
        int shards = 8;
        long inQuarter0 = digestAt(shards, 3, 0.10);
        long inQuarter1 = digestAt(shards, 3, 0.30);
        long inHalf1 = digestAt(shards, 3, 0.80);
        assertThat(bucket.partHolding(inQuarter1, shards)).isSameAs(quarter1);
        assertThat(bucket.partHolding(inHalf1, shards)).isSameAs(half1);
        assertThat(bucket.partHolding(inQuarter0, shards)).as("cell 0 of 4 never held the bucket").isNull();

        FingerprintStoreSizing newPlan = new FingerprintStoreSizing(20, 0.01, 3, 3);
        FingerprintPart created = bucket.partFor(inQuarter0, shards, SCHEME, newPlan);
        assertThat(created).isEqualTo(new FingerprintPart(SCHEME, newPlan, 0, 4, 0, 0));
        assertThat(bucket.parts()).containsExactly(created, quarter1, half1);
        assertThat(bucket.partFor(inQuarter0, shards, SCHEME, newPlan)).isSameAs(created);
    }

    @Test
    void partsThatOverlapOrWhoseCellsDoNotNestAreRefused() {
        assertThatThrownBy(() -> new FingerprintBucket(List.of(new FingerprintPart(SCHEME, SIZING, 0, 2, 0, 0),
                new FingerprintPart(SCHEME, SIZING, 1, 4, 0, 0)))).hasMessageContaining("parts overlap: cell 0/2 and cell 1/4");
        assertThatThrownBy(() -> new FingerprintBucket(List.of(new FingerprintPart(SCHEME, SIZING, 0, 2, 0, 0),
                new FingerprintPart(SCHEME, SIZING, 2, 3, 0, 0)))).hasMessageContaining("2 cells do not divide 3");
        assertThatThrownBy(() -> new FingerprintPart(SCHEME, SIZING, 2, 2, 0, 0)).hasMessageContaining("cell 2 of 2");
    }

    /** A merged bucket reports each part against its own plan: the fullest part's fill and FPP, never the sum against one. */
    @Test
    void aBucketInPartsReportsItsFullestPartsFillAndFppAndItsExactDistinctCount() {
        FingerprintPart light = new FingerprintPart(SCHEME, SIZING, 0, 2, 4, 0);
        FingerprintPart full = new FingerprintPart(SCHEME, SIZING, 1, 2, 9, 2);
        FingerprintBucket bucket = new FingerprintBucket(List.of(light, full));
        assertThat(bucket.inserted()).isEqualTo(15);
        assertThat(bucket.overflowed()).isEqualTo(2);
        assertThat(bucket.loadFactor()).isEqualTo(1.1);
        assertThat(bucket.estimatedFpp()).isEqualTo(full.estimatedFpp()).isGreaterThan(light.estimatedFpp());
        assertThat(bucket.initialCapacity()).isEqualTo(20);
    }

    @Test
    void aCopyIsEqualAndCountsOnItsOwn() {
        FingerprintBucket bucket = FingerprintBucket.create(SCHEME, SIZING);
        FingerprintBucket copy = bucket.copy();
        assertThat(copy).isEqualTo(bucket).isNotSameAs(bucket);
        copy.parts().get(0).recordInsert(0);
        assertThat(bucket.inserted()).isZero();
        assertThat(copy).isNotEqualTo(bucket);
    }

    @Test
    void aPartsPagesAreThoseOfItsCellAmongItsCellCountTimesItsPages() {
        FingerprintPart part = new FingerprintPart(SCHEME, SIZING, 1, 3, 0, 0);
        long key = part.pageKey(new Random(3).nextLong());
        assertThat(FingerprintBucket.pageCountOf(key)).isEqualTo(6);
        assertThat(FingerprintBucket.pageIndexOf(key)).isBetween(2, 3);
        assertThat(part.holdsPage(key)).isTrue();
        assertThat(new FingerprintPart(SCHEME, SIZING, 2, 3, 0, 0).holdsPage(key)).isFalse();
        assertThat(FingerprintPart.whole(SCHEME, SIZING).holdsPage(FingerprintBucket.pageKey(2, 1))).isTrue();
    }

    /** A digest whose top 32 bits put it at {@code fraction} of shard {@code shard}'s range under {@code shards} shards. */
    static long digestAt(int shards, int shard, double fraction) {
        long top = (long) Math.floor((shard + fraction) / shards * 4294967296.0);
        return top << 32;
    }
}
