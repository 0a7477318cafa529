package io.impressiondedup.job.config;

/**
 * How the impressions in the input topic are encoded ({@code --input-format}): what parser reads them at the source.
 * Everything after the source (identity, time, state, output) is the same for every format: the output and the dead
 * letters carry the original bytes, so a format is never converted.
 */
public enum InputFormat {
    /** One JSON object per Kafka value (the default). */
    JSON("json"),
    /** One Avro record per Kafka value, binary encoded with the schema of {@code --avro-schema-file}. */
    AVRO("avro");

    private final String optionValue;

    InputFormat(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The option's spelling ({@code json}, {@code avro}); Flink matches it without regard to case. */
    @Override
    public String toString() {
        return optionValue;
    }
}
