package io.impressiondedup.state.reshape;

import io.impressiondedup.state.BucketFilter;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The dedup state of a savepoint rewritten for another shard count: the rules of {@code dedup-tools reshape}, in one
 * place, for the tool and for the tests that restore what it writes. Built from every shard's bucket directory
 * ({@link #plan}), which it checks entirely before anything is written; then each page is moved by {@link
 * #moveFingerprintPage} or {@link #childrenOf} (Bloom page groups), and the new shards' directories are {@link
 * #directories()}.
 *
 * <p><b>The geometry.</b> A request's shard is {@code floor(x S / 2^32)} of the top 32 bits x of its digest, so
 * with {@code S' = f S} shards the children {@code s f .. s f + f - 1} of shard s hold exactly its requests, and
 * with {@code S' = S / f} shard t holds exactly those of {@code t f .. t f + f - 1}. A fingerprint bucket is stored
 * in parts, each the values of one cell (j of k) of its shard ({@link FingerprintPart}).
 *
 * <p><b>To f times more shards.</b> Bloom filters cannot be split by key (their bits do not say which element set
 * them): each child gets a bit-for-bit copy of every Bloom filter of its parent. A fingerprint part is moved whole:
 * <ul>
 *   <li>a part cut finer than the children ({@code k} a multiple of f, m = k / f) lies in child {@code j / m}, and
 *       becomes its cell {@code j mod m} of m: its pages move from {@code (k P, j P + p)} to {@code (m P, (j mod m) P +
 *       p)}, the only child that holds it;
 *   <li>a part as wide as one child or wider ({@code f} a multiple of k, r = f / k) covers children {@code j r ..
 *       j r + r - 1}: each gets a copy as a whole part ({@code 0} of 1, pages {@code (P, p)}), which from then on
 *       takes only that child's inserts;
 *   <li>any other pair of f and k would cut a cell across a child's boundary: refused, naming the bucket and the
 *       shard counts that work.
 * </ul>
 * Nothing is re-inserted and every value stays where a lookup of its record's cell finds it, so no copy can pass; a
 * lookup in a moved or copied part meets the sections it met before, at the same FPP.
 *
 * <p><b>To f times fewer shards</b> (fingerprint buckets only): old shard s is cell {@code i = s mod f} of its parent,
 * and each of its parts (j of k) becomes cell {@code i k + j} of {@code k f}; its pages move unchanged from {@code (K,
 * I)} to {@code (f K, i K + I)} (whatever the parts of the page, {@code K = k P} and {@code I = j P + p}). The parts of
 * one bucket from different children are its parts in the parent, each with its own sizing, scheme and counts (parts
 * of shards that ran under different options merge as they are). A Bloom bucket is refused: OR-ing filters raises the
 * FPP of every lookup. So is a merge whose parts' cells would not nest (cut into 2 cells in one child and 3 in another
 * by earlier reshapes), or whose page count would not fit an int.
 *
 * <p>So any chain of reshapes by multiples and divisors is exact (down, up, down again), or refused before anything is
 * written. Each copy of a wider part is a copy: up to f times its memory, until its bucket expires.
 */
public final class ShardReshape implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int from;
    private final int to;
    /** To more shards: per old shard with a bucket in several parts, every fingerprint part's page layout. */
    private final HashMap<Integer, PartLayout[]> layouts;
    /** The new shards' directories; on the client only. */
    private final transient Map<Integer, BucketFilters> directories;

    /** Where one fingerprint part's pages are, and how it moves: a serializable summary of its directory entry. */
    record PartLayout(long bucket, int pages, int cellIndex, int cellCount) implements Serializable {

        boolean holds(long bucket, long key) {
            return this.bucket == bucket && FingerprintBucket.pageCountOf(key) == cellCount * pages
                    && FingerprintBucket.pageIndexOf(key) / pages == cellIndex;
        }
    }

    /** Receives a page written to a new shard. */
    @FunctionalInterface
    public interface PageSink {
        void accept(int shard, long key, FingerprintPage page);
    }

    private ShardReshape(int from, int to, HashMap<Integer, PartLayout[]> layouts, Map<Integer, BucketFilters> directories) {
        this.from = from;
        this.to = to;
        this.layouts = layouts;
        this.directories = directories;
    }

    /**
     * Why {@code from -> to} shards cannot be done by moving state at all, or {@code null}: the same count, or one that is
     * neither a multiple nor a divisor.
     */
    public static String countRefusal(int from, int to) {
        if (to == from) {
            return "--shards " + to + " is the savepoint's shard count already: nothing to do.";
        }
        if (to < from ? from % to != 0 : to % from != 0) {
            return "--shards " + to + " is neither a multiple nor a divisor of the savepoint's " + from + " shards. A filter cannot be"
                    + " split by key, and only fingerprint buckets can be merged by whole shards: a count that is neither would have"
                    + " to OR filters together, raising their fill and FPP several times over. Use a multiple (" + 2 * from + ", "
                    + 3 * from + ", ...), a divisor (every live bucket in the fingerprint format), or build a new savepoint from"
                    + " history with `dedup-tools bootstrap --shards " + to + "` (from the job's output topic).";
        }
        return null;
    }

    /**
     * The reshape of a savepoint of {@code from} shards whose directories are {@code directories} (shard to directory; a
     * shard without state absent) to {@code to} shards.
     *
     * @throws ReshapeRefusedException naming the shard count, the bucket and what works, if it cannot be done without
     *     loss
     */
    public static ShardReshape plan(int from, int to, Map<Integer, BucketFilters> directories) {
        String refused = countRefusal(from, to);
        if (refused != null) {
            throw new ReshapeRefusedException(refused);
        }
        return to > from ? up(from, to / from, directories) : down(from, from / to, directories);
    }

    private static ShardReshape up(int from, int f, Map<Integer, BucketFilters> directories) {
        Map<Integer, BucketFilters> children = new TreeMap<>();
        HashMap<Integer, PartLayout[]> layouts = new HashMap<>();
        for (Map.Entry<Integer, BucketFilters> entry : new TreeMap<>(directories).entrySet()) {
            int shard = entry.getKey();
            BucketFilters directory = entry.getValue();
            boolean split = false;
            List<PartLayout> shardLayouts = new ArrayList<>();
            for (int b = 0; b < directory.size(); b++) {
                long bucket = directory.bucketAt(b);
                BucketFilter filter = directory.filterAt(b);
                if (!(filter instanceof FingerprintBucket fingerprints)) {
                    for (int i = 0; i < f; i++) {
                        children.computeIfAbsent(shard * f + i, c -> new BucketFilters()).put(bucket, filter.copy());
                    }
                    continue;
                }
                List<List<FingerprintPart>> childParts = new ArrayList<>();
                for (int i = 0; i < f; i++) {
                    childParts.add(new ArrayList<>());
                }
                for (FingerprintPart part : fingerprints.parts()) {
                    int k = part.cellCount();
                    int j = part.cellIndex();
                    shardLayouts.add(new PartLayout(bucket, part.sizing().pages(), j, k));
                    split |= k > 1;
                    if (k % f == 0) {
                        int m = k / f;
                        childParts.get(j / m).add(part.inCell(j % m, m));
                    } else if (f % k == 0) {
                        int r = f / k;
                        for (int i = j * r; i < j * r + r; i++) {
                            childParts.get(i).add(part.inCell(0, 1));
                        }
                    } else {
                        throw new ReshapeRefusedException("--shards " + from * f + ": bucket " + bucket + " of shard " + shard
                                + " holds cell " + j + " of " + k + " of its shard, from an earlier reshape to fewer shards, and " + f
                                + " times the shards would cut that cell across a new shard's boundary (" + f + " and " + k
                                + " must divide one another). Counts that work while it lives: " + workingMultiples(from, k)
                                + "; any multiple once bucket " + bucket + " has expired. Nothing was written.");
                    }
                }
                for (int i = 0; i < f; i++) {
                    if (!childParts.get(i).isEmpty()) {
                        children.computeIfAbsent(shard * f + i, c -> new BucketFilters()).put(bucket, new FingerprintBucket(childParts.get(i)));
                    }
                }
            }
            for (int i = 0; i < f; i++) {
                children.computeIfAbsent(shard * f + i, c -> new BucketFilters());
            }
            if (split) {
                layouts.put(shard, shardLayouts.toArray(new PartLayout[0]));
            }
        }
        return new ShardReshape(from, from * f, layouts, children);
    }

    /** The first few multiples of {@code from} whose factor divides {@code cells} or is a multiple of it. */
    private static String workingMultiples(int from, int cells) {
        List<String> counts = new ArrayList<>();
        for (int m = 2; counts.size() < 4 && m <= 64 * cells; m++) {
            if (cells % m == 0 || m % cells == 0) {
                counts.add("--shards " + (long) from * m);
            }
        }
        return String.join(", ", counts);
    }

    private static ShardReshape down(int from, int f, Map<Integer, BucketFilters> directories) {
        Map<Integer, Map<Long, List<FingerprintPart>>> parentParts = new TreeMap<>();
        Map<Integer, BucketFilters> parents = new TreeMap<>();
        for (Map.Entry<Integer, BucketFilters> entry : new TreeMap<>(directories).entrySet()) {
            int shard = entry.getKey();
            BucketFilters directory = entry.getValue();
            int parent = shard / f;
            int i = shard % f;
            parents.computeIfAbsent(parent, p -> new BucketFilters());
            for (int b = 0; b < directory.size(); b++) {
                long bucket = directory.bucketAt(b);
                if (!(directory.filterAt(b) instanceof FingerprintBucket fingerprints)) {
                    throw new ReshapeRefusedException("--shards " + from / f + ": bucket " + bucket + " of shard " + shard + " is in the "
                            + directory.filterAt(b).format().optionValue() + " format: only fingerprint buckets can be merged into fewer"
                            + " shards without raising their FPP (a Bloom filter's bits do not say which shard set them). Run with"
                            + " --state-format fingerprints until every Bloom bucket has expired (retention + allowed lateness + one"
                            + " bucket), or bootstrap a new savepoint with the shard count you want. Nothing was written.");
                }
                List<FingerprintPart> parts = parentParts.computeIfAbsent(parent, p -> new LinkedHashMap<>())
                        .computeIfAbsent(bucket, x -> new ArrayList<>());
                for (FingerprintPart part : fingerprints.parts()) {
                    long cells = (long) part.cellCount() * f;
                    if (cells * part.sizing().pages() > Integer.MAX_VALUE) {
                        throw new ReshapeRefusedException("--shards " + from / f + ": bucket " + bucket + " of shard " + shard + " has "
                                + part.sizing().pages() + " pages in cell " + part.cellIndex() + " of " + part.cellCount() + "; merged "
                                + f + " to one, its pages would not fit a page key. Merge by a smaller factor, or once bucket " + bucket
                                + " has expired. Nothing was written.");
                    }
                    parts.add(part.inCell(i * part.cellCount() + part.cellIndex(), (int) cells));
                }
            }
        }
        for (Map.Entry<Integer, Map<Long, List<FingerprintPart>>> entry : parentParts.entrySet()) {
            for (Map.Entry<Long, List<FingerprintPart>> bucket : entry.getValue().entrySet()) {
                try {
                    parents.get(entry.getKey()).put(bucket.getKey(), new FingerprintBucket(bucket.getValue()));
                } catch (IllegalArgumentException e) {
                    throw new ReshapeRefusedException("--shards " + from / f + ": bucket " + bucket.getKey() + " of shards "
                            + entry.getKey() * f + ".." + (entry.getKey() * f + f - 1) + " cannot be merged: " + e.getMessage()
                            + ". Earlier reshapes cut its shards into cells that do not nest; merge once bucket " + bucket.getKey()
                            + " has expired. Nothing was written.");
                }
            }
        }
        return new ShardReshape(from, from / f, new HashMap<>(), parents);
    }

    public int from() {
        return from;
    }

    public int to() {
        return to;
    }

    /** Whether the shard count shrinks: each new shard holds the parts of several old ones. */
    public boolean merges() {
        return to < from;
    }

    /** The new shards' bucket directories, by shard (every shard the state of some old shard reaches). */
    public Map<Integer, BucketFilters> directories() {
        if (directories == null) {
            throw new IllegalStateException("the directories stay on the client that planned the reshape");
        }
        return directories;
    }

    /** The new shards a Bloom page group of old shard {@code shard} is copied to: its children (never asked when merging). */
    public int[] childrenOf(int shard) {
        if (merges()) {
            throw new IllegalStateException("Bloom page groups cannot be merged into fewer shards");
        }
        int f = to / from;
        int[] children = new int[f];
        for (int i = 0; i < f; i++) {
            children[i] = shard * f + i;
        }
        return children;
    }

    /**
     * Whether old shard {@code shard}'s fingerprint pages are split by section when moving ({@link #moveFingerprintPage}
     * needs the page), rather than moved or copied whole under a key that does not depend on their content ({@link
     * #wholePageMoves}).
     */
    public boolean splitsPagesOf(int shard) {
        return !merges() && layouts.containsKey(shard);
    }

    /**
     * The (new shard, key) pairs old shard {@code shard}'s fingerprint page at {@code key} goes to when it is not split
     * ({@link #splitsPagesOf} false): to fewer shards, {@code (f K, i K + I)} in its parent; to more, the same key in
     * each child. As {@code long[]} pairs {shard, key}.
     */
    public long[][] wholePageMoves(int shard, long key) {
        if (merges()) {
            int f = from / to;
            int count = FingerprintBucket.pageCountOf(key);
            long newKey = FingerprintBucket.pageKey(count * f, (shard % f) * count + FingerprintBucket.pageIndexOf(key));
            return new long[][] {{shard / f, newKey}};
        }
        int[] children = childrenOf(shard);
        long[][] moves = new long[children.length][];
        for (int i = 0; i < children.length; i++) {
            moves[i] = new long[] {children[i], key};
        }
        return moves;
    }

    /**
     * Moves old shard {@code shard}'s fingerprint page at {@code key} to the new shards (class comment), giving {@code
     * sink} each page written: the page itself, or, where its sections go different ways, a page per (shard, key) with
     * those sections. Pages from different old pages may meet at one (shard, key), with sections of different buckets:
     * the writer puts their sections together ({@link FingerprintPage#putSection}).
     */
    public void moveFingerprintPage(int shard, long key, FingerprintPage page, PageSink sink) {
        if (!splitsPagesOf(shard)) {
            for (long[] move : wholePageMoves(shard, key)) {
                sink.accept((int) move[0], move[1], page);
            }
            return;
        }
        int f = to / from;
        PartLayout[] shardLayouts = layouts.get(shard);
        Map<Destination, FingerprintPage> out = new LinkedHashMap<>();
        for (int s = 0; s < page.sectionCount(); s++) {
            long bucket = page.bucketAt(s);
            PartLayout layout = null;
            for (PartLayout candidate : shardLayouts) {
                if (candidate.holds(bucket, key)) {
                    layout = candidate;
                    break;
                }
            }
            List<Destination> destinations = new ArrayList<>();
            // A whole part to every child; so too a section no part holds (a corrupt savepoint: copied as it is, and refused by the
            // writer if it meets a moved section of the same bucket and band).
            if (layout == null || layout.cellCount() == 1) {
                for (int i = 0; i < f; i++) {
                    destinations.add(new Destination(shard * f + i, key));
                }
            } else if (layout.cellCount() % f == 0) {
                int count = FingerprintBucket.pageCountOf(key) / f;
                int index = FingerprintBucket.pageIndexOf(key);
                destinations.add(new Destination(shard * f + index / count, FingerprintBucket.pageKey(count, index % count)));
            } else {
                int r = f / layout.cellCount();
                long copyKey = FingerprintBucket.pageKey(layout.pages(), FingerprintBucket.pageIndexOf(key) - layout.cellIndex() * layout.pages());
                for (int i = layout.cellIndex() * r; i < layout.cellIndex() * r + r; i++) {
                    destinations.add(new Destination(shard * f + i, copyKey));
                }
            }
            EliasFanoSection section = page.sectionAt(s);
            for (Destination destination : destinations) {
                out.computeIfAbsent(destination, d -> new FingerprintPage()).putSection(bucket, page.bandAt(s), section);
            }
        }
        out.forEach((destination, moved) -> sink.accept(destination.shard(), destination.key(), moved));
    }

    /** A page's place in the new state. */
    private record Destination(int shard, long key) {}
}
