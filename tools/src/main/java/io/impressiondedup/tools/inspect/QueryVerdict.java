package io.impressiondedup.tools.inspect;

/**
 * What the dedup operator, restored from the savepoint, would do with one {@link Query}. A public POJO, so
 * Flink serializes it with its POJO serializer.
 */
public final class QueryVerdict {

    /** Found in a live filter of its range: the job drops it. */
    public static final String DUPLICATE = "DUPLICATE";
    /** Not found and in time: the job passes it (and remembers it). */
    public static final String NEW = "NEW";
    /** Not found, and more than the allowed lateness behind the saved watermark: set aside by --late-policy. */
    public static final String LATE = "LATE";

    public int index;
    public String requestId;
    public String adId;
    public long eventTime;
    public int shard;
    /** {@link #DUPLICATE}, {@link #NEW} or {@link #LATE}. */
    public String verdict;
    /** The bucket whose filter holds it ({@link #DUPLICATE} only), else {@code null}. */
    public Long bucket;

    public QueryVerdict() {}

    QueryVerdict(Query query, String verdict, Long bucket) {
        this.index = query.index();
        this.requestId = query.requestId();
        this.adId = query.adId();
        this.eventTime = query.eventTime();
        this.shard = query.shard();
        this.verdict = verdict;
        this.bucket = bucket;
    }

    @Override
    public String toString() {
        return "QueryVerdict{" + requestId + "/" + adId + "@" + eventTime + ": " + verdict + (bucket == null ? "" : " in " + bucket) + '}';
    }
}
