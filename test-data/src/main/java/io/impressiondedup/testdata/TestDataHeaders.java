package io.impressiondedup.testdata;

/** Kafka header names the generator writes and the verifier reads. */
public final class TestDataHeaders {

    /**
     * The generator's sequence number of a record (decimal ASCII). The job passes headers through
     * untouched, so every output record and dead letter can be matched with its ground-truth row,
     * whatever its value holds (or fails to hold).
     */
    public static final String SEQ = "testdata.seq";

    /** Header the job sets on dead letters; read by the verifier. */
    public static final String DEAD_LETTER_REASON = "dedup.reason";

    private TestDataHeaders() {}
}
