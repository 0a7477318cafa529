package io.impressiondedup.state;

/** What an insert of an impression found absent did to its bucket's filter ({@link BucketFilter}). */
public enum Insertion {
    /** Within the filter's current capacity. */
    INSERTED,
    /**
     * Into new over-plan capacity opened for it: a Bloom filter added a layer, a fingerprint bucket opened its next
     * band. The FPP promise holds.
     */
    GREW,
    /**
     * Past what the filter may grow to (a Bloom filter refused a layer by the shard state cap or at its last
     * layer; a fingerprint bucket past its last band's capacity): the filter's FPP rises above its target.
     */
    OVER_FILLED
}
