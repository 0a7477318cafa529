package io.impressiondedup.job.config;

/** Where a job without state starts reading the input topic ({@code --starting-offsets}). */
public enum StartingOffsets {
    /** The consumer group's committed offsets; earliest where the group has none. */
    COMMITTED("committed"),
    EARLIEST("earliest"),
    LATEST("latest");

    private final String optionValue;

    StartingOffsets(String optionValue) {
        this.optionValue = optionValue;
    }

    /** The option value; Flink's configuration parses enums by it. */
    @Override
    public String toString() {
        return optionValue;
    }
}
