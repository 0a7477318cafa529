package io.impressiondedup.operators.dedup.restore;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPageSerializer;
import io.impressiondedup.state.serialization.BucketFiltersSerializer;
import io.impressiondedup.state.serialization.PageGroupSerializer;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;

/**
 * The dedup operator's state, as a savepoint holds it: the one place that names it, for the operator
 * and for the state tools that read and write savepoints without running it.
 *
 * <p><b>Keyed state</b>, keyed by the shard's Flink key ({@code ShardKeys#keyOf}, an {@code Integer}):
 * <ul>
 *   <li>{@value #DIRECTORY} ({@code ValueState<BucketFilters>}): each live bucket's format and filter metadata
 *       (Bloom: geometry, planned capacity, FPP and insert count of each layer; fingerprints: the sizing and the
 *       count), a few dozen bytes per bucket;
 *   <li>{@value #PAGES} ({@code MapState<Long, PageGroup>}): every page of every filter of the shard,
 *       keyed by {@code PageAddress} (geometry slot, page index), the pages at one index of all filters of
 *       one geometry together, so a record reads one entry;
 *   <li>{@value #FINGERPRINT_PAGES} ({@code MapState<Long, FingerprintPage>}): the sections of every bucket in the
 *       fingerprint format, keyed by (page count, page index) ({@code FingerprintBucket#pageKey}); empty in
 *       state that holds Bloom buckets only, and absent from savepoints of state v1-v4;
 *   <li>{@value #PAGE_JOURNAL} ({@code ListState<byte[]>}): in checkpoints only, the inserts whose page changes a
 *       checkpoint did not write ({@code PageJournal}, its value layout versioned in each value); a savepoint's is empty;
 *   <li>timers of the service {@value #EXPIRY_TIMERS}, namespace = bucket id: an event-time timer at
 *       each bucket's expiry and a processing-time safety timer. They are derived from the directory:
 *       the operator registers them again for every restored bucket, so state written without them (by
 *       the state tools) expires like state the job wrote.
 * </ul>
 *
 * <p><b>Operator state</b> (union lists, every subtask writes the same value):
 * {@value #SHARD_COUNT} (a restore with another count fails), {@value #FINGERPRINT_CHECK} (the check
 * value of the fingerprint secret, absent in state v1), {@value #DEDUP_KEY} (the
 * identity rule's description, {@code DedupSettings#dedupKey()}; absent in state v1 and v2 and in savepoints of
 * {@code bootstrap --from-file}), {@value #LATENESS_WATERMARK} (each subtask's lateness watermark at the snapshot; the restore takes the highest),
 * {@value #TIME_OPTIONS} (the time options, {@code TimeBuckets#description()}) and {@value #LATE_BEFORE} (the event time
 * before which records are late whatever the watermark, {@code TimeBuckets} rule 7); the last two are absent in state v1-v3,
 * which is then taken as written under the options the job runs with. {@value #JOURNALED_SHARDS} (each subtask's count
 * of shards with a page journal, 0 in every savepoint; absent before state v6) lets the state tools refuse a checkpoint whose
 * pages are not complete. Which state version holds what, and what reads,
 * migrates or refuses it: docs/COMPATIBILITY.md.
 *
 * <p>These names and serializers are in every savepoint: never rename them.
 */
public final class DedupStateLayout {

    /** Keyed: {@code ValueState<BucketFilters>}, the shard's bucket directory. */
    public static final String DIRECTORY = "bucket-filters";
    /** Keyed: {@code MapState<Long, PageGroup>}, the shard's Bloom pages by {@code PageAddress}. */
    public static final String PAGES = "bloom-page-groups";
    /** Keyed: {@code MapState<Long, FingerprintPage>}, the shard's fingerprint pages. */
    public static final String FINGERPRINT_PAGES = "fingerprint-pages";
    /** Keyed: {@code ListState<byte[]>}, the shard's page journal (checkpoints only). */
    public static final String PAGE_JOURNAL = "page-journal";
    /** Timer service of the bucket expiry timers (namespace: bucket id). */
    public static final String EXPIRY_TIMERS = "bucket-expiry";
    /** Operator union state: the shard count. */
    public static final String SHARD_COUNT = "shard-count";
    /** Operator union state: the fingerprint secret's check value. */
    public static final String FINGERPRINT_CHECK = "fingerprint-check";
    /** Operator union state: the dedup key's description. */
    public static final String DEDUP_KEY = "dedup-key";
    /** Operator union state: the lateness watermark of each subtask. */
    public static final String LATENESS_WATERMARK = "lateness-watermark";
    /** Operator union state: the time options the state was written under. */
    public static final String TIME_OPTIONS = "time-options";
    /** Operator union state: the event time (epoch millis) before which records are late whatever the watermark. */
    public static final String LATE_BEFORE = "late-before";

    /** Operator union state: each subtask's count of shards whose page journal is not empty. */
    public static final String JOURNALED_SHARDS = "journaled-shards";

    private DedupStateLayout() {}

    public static ValueStateDescriptor<BucketFilters> directory() {
        return new ValueStateDescriptor<>(DIRECTORY, BucketFiltersSerializer.INSTANCE);
    }

    public static MapStateDescriptor<Long, PageGroup> pages() {
        return new MapStateDescriptor<>(PAGES, LongSerializer.INSTANCE, PageGroupSerializer.INSTANCE);
    }

    public static MapStateDescriptor<Long, FingerprintPage> fingerprintPages() {
        return new MapStateDescriptor<>(FINGERPRINT_PAGES, LongSerializer.INSTANCE, FingerprintPageSerializer.INSTANCE);
    }

    public static ListStateDescriptor<byte[]> pageJournal() {
        return new ListStateDescriptor<>(PAGE_JOURNAL, BytePrimitiveArraySerializer.INSTANCE);
    }

    public static ListStateDescriptor<Integer> journaledShards() {
        return new ListStateDescriptor<>(JOURNALED_SHARDS, IntSerializer.INSTANCE);
    }

    public static ListStateDescriptor<Integer> shardCount() {
        return new ListStateDescriptor<>(SHARD_COUNT, IntSerializer.INSTANCE);
    }

    public static ListStateDescriptor<Long> fingerprintCheck() {
        return new ListStateDescriptor<>(FINGERPRINT_CHECK, LongSerializer.INSTANCE);
    }

    public static ListStateDescriptor<String> dedupKey() {
        return new ListStateDescriptor<>(DEDUP_KEY, StringSerializer.INSTANCE);
    }

    public static ListStateDescriptor<Long> latenessWatermark() {
        return new ListStateDescriptor<>(LATENESS_WATERMARK, LongSerializer.INSTANCE);
    }

    public static ListStateDescriptor<String> timeOptions() {
        return new ListStateDescriptor<>(TIME_OPTIONS, StringSerializer.INSTANCE);
    }

    public static ListStateDescriptor<Long> lateBefore() {
        return new ListStateDescriptor<>(LATE_BEFORE, LongSerializer.INSTANCE);
    }
}
