package io.impressiondedup.testdata.generate;

/** How the generator writes an impression's value. */
public enum ValueFormat {
    /** A JSON object (the job's default input). */
    JSON,
    /** The binary Avro encoding of {@code impression.avsc}, with or without the schema registry's wire prefix. */
    AVRO
}
