package io.impressiondedup.tools;

import java.io.PrintStream;

/** PLACEHOLDER, replaced before merge. */
final class InspectCommand {

    private InspectCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        err.println("not built yet");
        return 1;
    }
}
