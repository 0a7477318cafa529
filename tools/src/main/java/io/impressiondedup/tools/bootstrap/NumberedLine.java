package io.impressiondedup.tools.bootstrap;

/**
 * A line of a history file with its 1-based number, so that a bad row is reported where it is. A Flink
 * POJO (public fields, no-argument constructor): never serialized with Kryo.
 */
public final class NumberedLine {

    public long number;
    /** The line without its line break, or {@code null} if it could not be read ({@link #error} says why). */
    public String text;
    public String error;

    public NumberedLine() {}

    public NumberedLine(long number, String text, String error) {
        this.number = number;
        this.text = text;
        this.error = error;
    }
}
