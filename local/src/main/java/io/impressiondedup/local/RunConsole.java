package io.impressiondedup.local;

import java.io.PrintStream;
import java.util.Locale;

/** The run's console: its steps as {@code ==> } lines, figures in {@link Locale#ROOT} whatever the machine's locale. */
final class RunConsole {

    private final PrintStream out;

    RunConsole(PrintStream out) {
        this.out = out;
    }

    void step(String format, Object... args) {
        out.printf(Locale.ROOT, "==> " + format + "%n", args);
    }

    void printf(String format, Object... args) {
        out.printf(Locale.ROOT, format, args);
    }

    void println(String line) {
        out.println(line);
    }

    void print(String text) {
        out.print(text);
    }

    /** The stream itself, for code that prints its own progress lines. */
    PrintStream stream() {
        return out;
    }
}
