package io.impressiondedup.job.io.registry;

import io.impressiondedup.job.io.avro.AvroImpressionFields;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.avro.Schema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer schemas of a registry, by the id a value's wire prefix carries, each turned once into a reader of the fields
 * the job needs ({@link AvroImpressionFields}) and kept: a registry never changes the schema behind an id, so a schema
 * fetched once serves every later record of its id, whatever becomes of the registry.
 *
 * <p><b>What an id resolves to</b> ({@link #resolve}):
 *
 * <ul>
 *   <li>the registry has the schema, and it holds the job's fields: a reader. The fields are found by name in each
 *       writer schema, so producers may add or remove any other field, with or without a default, and an int key or
 *       event time may become a long: each schema's own reader skips what the job does not read.
 *   <li>the registry has the schema, but it lacks a field the job reads, or cannot hold it, or is no Avro: {@link
 *       Resolution#unusable}, kept too; its records are dead-lettered as malformed, naming the id and the field.
 *   <li>the registry answers 404: {@link Resolution#unknown}; its records are dead-lettered as {@code schema-unknown}.
 *       The answer is kept {@value #UNKNOWN_TTL_MILLIS} ms, so that a run of records with random ids asks the registry
 *       once per id and per minute, not once per record; a schema registered later is found after that.
 *   <li>no answer (the registry unreachable, slow past the request timeout, 5xx, 401 or 403): the call <b>waits and
 *       asks again</b>, 100 ms later, then twice as long each time up to {@value #MAX_BACKOFF_MILLIS} ms, until the
 *       registry answers. The records behind it wait with it, the source stops reading, and the job backpressures;
 *       records of ids already known never needed the registry. Nothing is dead-lettered for an outage. The wait is
 *       logged at its start and every {@value #LOG_EVERY_MILLIS} ms; cancelling the task interrupts it.
 * </ul>
 *
 * <p>Bounded: at most {@value #MAX_KNOWN} schemas and {@value #MAX_UNKNOWN} unknown ids are kept, the least recently
 * used leaving first (a reader is a few KiB).
 *
 * <p><b>Metrics</b> (in the source's metric group): counters {@value #CACHE_HITS} and {@value #CACHE_MISSES} (records
 * whose id was kept, and lookups that asked the registry), {@value #REGISTRY_ERRORS} (requests with no answer), the
 * histogram {@value #REGISTRY_LATENCY} (milliseconds per request that got an answer), and per schema id, in the group
 * {@code writer_schema_id=<id>}, the counter {@value #RECORDS} of records read with that schema.
 *
 * <p>One instance per source reader; not thread-safe.
 */
public final class WriterSchemas {

    public static final String CACHE_HITS = "schema-cache-hits";
    public static final String CACHE_MISSES = "schema-cache-misses";
    public static final String REGISTRY_ERRORS = "schema-registry-errors";
    public static final String REGISTRY_LATENCY = "schema-registry-latency-ms";
    public static final String WRITER_SCHEMA_ID_GROUP = "writer_schema_id";
    /** The group of {@link #RECORDS} for the content ids of Apicurio's header {@value SchemaIdKind#CONTENT_ID_HEADER}. */
    public static final String WRITER_SCHEMA_CONTENT_ID_GROUP = "writer_schema_content_id";
    public static final String RECORDS = "writer-schema-records";

    static final int MAX_KNOWN = 1_000;
    static final int MAX_UNKNOWN = 10_000;
    static final long UNKNOWN_TTL_MILLIS = 60_000;
    static final long FIRST_BACKOFF_MILLIS = 100;
    static final long MAX_BACKOFF_MILLIS = 5_000;
    static final long LOG_EVERY_MILLIS = 30_000;

    private static final Logger LOG = LoggerFactory.getLogger(WriterSchemas.class);

    /** What an id resolves to: exactly one of a reader, an unknown id's reason, an unusable schema's reason. */
    public static final class Resolution {
        private final AvroImpressionFields fields;
        private final String unknown;
        private final String unusable;
        private final Counter records;

        private Resolution(AvroImpressionFields fields, String unknown, String unusable, Counter records) {
            this.fields = fields;
            this.unknown = unknown;
            this.unusable = unusable;
            this.records = records;
        }

        /** The reader of this id's schema, or null. */
        public AvroImpressionFields fields() {
            return fields;
        }

        /** Why the registry has no schema of this id, or null. */
        public String unknown() {
            return unknown;
        }

        /** Why this id's schema cannot be read for the job's fields, or null. */
        public String unusable() {
            return unusable;
        }

        /** Counts one record read with this schema. */
        public void countRecord() {
            records.inc();
        }
    }

    /** An id the registry answered 404 for, until when that answer is kept. */
    private record UnknownId(Resolution resolution, long expiresAtMillis) {}

    /** Asks the registry for the schema of an id; {@link SchemaRegistryClient} in production. */
    interface Registry {
        SchemaRegistryClient.Answer fetch(SchemaIdKind kind, long id) throws IOException, InterruptedException;
    }

    /** Waits between attempts; {@link Thread#sleep} in production. */
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final Registry registry;
    private final Function<Schema, AvroImpressionFields> readers;
    private final MetricGroup metrics;
    private final LongSupplier clockMillis;
    private final Sleeper sleeper;
    private final String describedRegistry;
    /** The kind of id a value's prefix carries ({@link #resolve(long)}). */
    private final SchemaIdKind prefixKind;
    /** Per kind of id (ordinal), the schemas fetched, by id. */
    private final List<Map<Long, Resolution>> known = new ArrayList<>();
    /** Per kind of id, the ids answered 404. */
    private final List<Map<Long, UnknownId>> unknown = new ArrayList<>();
    /** Per kind and schema id seen, its records counter: kept when its schema leaves {@link #known}, so a return re-registers nothing. */
    private final List<Map<Long, Counter>> recordCounters = new ArrayList<>();
    private final Counter hits;
    private final Counter misses;
    private final Counter errors;
    private final Histogram latency;

    /**
     * @param readers builds the reader of a writer schema for the job's fields, throwing {@link IllegalArgumentException}
     *     naming the field a schema cannot hold
     * @param metrics where the metrics go (the source's group)
     */
    public WriterSchemas(SchemaRegistrySettings settings, Function<Schema, AvroImpressionFields> readers, MetricGroup metrics) {
        this(new SchemaRegistryClient(settings)::fetch, SchemaIdKind.of(settings.prefix()).get(0), settings.toString(), readers, metrics,
                System::currentTimeMillis, Thread::sleep);
    }

    WriterSchemas(Registry registry, SchemaIdKind prefixKind, String describedRegistry, Function<Schema, AvroImpressionFields> readers,
            MetricGroup metrics, LongSupplier clockMillis, Sleeper sleeper) {
        this.prefixKind = Objects.requireNonNull(prefixKind, "prefixKind");
        for (int i = 0; i < SchemaIdKind.values().length; i++) {
            known.add(new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, Resolution> eldest) {
                    return size() > MAX_KNOWN;
                }
            });
            unknown.add(new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, UnknownId> eldest) {
                    return size() > MAX_UNKNOWN;
                }
            });
            recordCounters.add(new HashMap<>());
        }
        this.registry = Objects.requireNonNull(registry, "registry");
        this.describedRegistry = describedRegistry;
        this.readers = Objects.requireNonNull(readers, "readers");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clockMillis = clockMillis;
        this.sleeper = sleeper;
        this.hits = metrics.counter(CACHE_HITS, new SimpleCounter());
        this.misses = metrics.counter(CACHE_MISSES, new SimpleCounter());
        this.errors = metrics.counter(REGISTRY_ERRORS, new SimpleCounter());
        this.latency = metrics.histogram(REGISTRY_LATENCY, new DescriptiveStatisticsHistogram(1_000));
    }

    /**
     * What {@code id} resolves to (class comment); waits while the registry gives no answer.
     *
     * @throws FlinkRuntimeException if the wait is interrupted (the task is being cancelled)
     */
    public Resolution resolve(long id) {
        return resolve(prefixKind, id);
    }

    /** As {@link #resolve(long)}, for an id of {@code kind} (of a header). */
    public Resolution resolve(SchemaIdKind kind, long id) {
        Map<Long, Resolution> known = this.known.get(kind.ordinal());
        Map<Long, UnknownId> unknown = this.unknown.get(kind.ordinal());
        Resolution resolution = known.get(id);
        if (resolution != null) {
            hits.inc();
            return resolution;
        }
        UnknownId unknownId = unknown.get(id);
        if (unknownId != null && clockMillis.getAsLong() < unknownId.expiresAtMillis) {
            hits.inc();
            return unknownId.resolution;
        }
        misses.inc();
        SchemaRegistryClient.Answer answer = ask(kind, id);
        if (!answer.isFound()) {
            resolution = new Resolution(null, answer.unknownReason(), null, null);
            unknown.put(id, new UnknownId(resolution, clockMillis.getAsLong() + UNKNOWN_TTL_MILLIS));
            return resolution;
        }
        unknown.remove(id);
        Counter records = recordCounters.get(kind.ordinal()).computeIfAbsent(id, i -> metrics.addGroup(
                kind == SchemaIdKind.CONTENT_ID ? WRITER_SCHEMA_CONTENT_ID_GROUP : WRITER_SCHEMA_ID_GROUP, Long.toUnsignedString(i))
                .counter(RECORDS, new SimpleCounter()));
        try {
            resolution = new Resolution(readers.apply(AvroImpressionFields.parse(answer.schemaText())), null, null, records);
            LOG.info("Writer schema {} {} fetched from the schema registry {}", describe(kind), Long.toUnsignedString(id), describedRegistry);
        } catch (IllegalArgumentException e) {
            resolution = new Resolution(null, null, e.getMessage(), records);
            LOG.warn("Writer schema {} {} from the schema registry {} cannot be read for the job's fields; its records are dead-lettered"
                    + " as malformed: {}", describe(kind), Long.toUnsignedString(id), describedRegistry, e.getMessage());
        }
        known.put(id, resolution);
        return resolution;
    }

    /** The registry's answer for {@code id}, asking again after each failure (class comment). */
    /** "id", or "content id" for {@link SchemaIdKind#CONTENT_ID}: how a message names an id of {@code kind}. */
    public static String describe(SchemaIdKind kind) {
        return kind == SchemaIdKind.CONTENT_ID ? "content id" : "id";
    }

    private SchemaRegistryClient.Answer ask(SchemaIdKind kind, long id) {
        long backoff = FIRST_BACKOFF_MILLIS;
        long waitingSince = -1;
        long lastLogged = -1;
        int attempts = 0;
        while (true) {
            long started = System.nanoTime();
            try {
                SchemaRegistryClient.Answer answer = registry.fetch(kind, id);
                latency.update((System.nanoTime() - started) / 1_000_000);
                if (waitingSince >= 0) {
                    LOG.info("The schema registry {} answered for schema id {} after {} attempts and {} ms of waiting", describedRegistry,
                            Long.toUnsignedString(id), attempts + 1, clockMillis.getAsLong() - waitingSince);
                }
                return answer;
            } catch (IOException | RuntimeException e) {
                errors.inc();
                attempts++;
                long now = clockMillis.getAsLong();
                if (waitingSince < 0) {
                    waitingSince = now;
                }
                if (lastLogged < 0 || now - lastLogged >= LOG_EVERY_MILLIS) {
                    lastLogged = now;
                    LOG.warn("No answer from the schema registry {} for schema id {} ({} attempts, {} ms so far; the records wait,"
                            + " none is dead-lettered for it, asking again in {} ms): {}", describedRegistry, Long.toUnsignedString(id),
                            attempts, now - waitingSince, backoff, e.toString());
                }
                try {
                    sleeper.sleep(backoff);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new FlinkRuntimeException("interrupted while waiting for the schema registry " + describedRegistry, interrupted);
                }
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FlinkRuntimeException("interrupted while asking the schema registry " + describedRegistry, e);
            }
        }
    }
}
