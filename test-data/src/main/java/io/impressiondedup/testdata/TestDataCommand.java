package io.impressiondedup.testdata;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code test-data generate ...} ({@link GenerateCommand}) and {@code test-data verify ...} ({@link VerifyCommand}):
 * the generator and the ground-truth verifier on the command line (picocli). {@code --help} after a command lists its
 * options with their defaults. Durations are given like {@code 4d}, {@code 20h}, {@code 30s}
 * (Flink's {@link TimeUtils#parseDuration}), instants in ISO-8601.
 */
@Command(name = "test-data", scope = ScopeType.INHERIT, sortOptions = false, showDefaultValues = true, abbreviateSynopsis = true,
        usageHelpWidth = 100,
        subcommands = {GenerateCommand.class, VerifyCommand.class},
        description = "Deterministic impression generator and ground-truth verifier.")
public final class TestDataCommand {

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "Print this help.")
    boolean help;

    private final PrintStream out;
    private final PrintStream err;

    private TestDataCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command; exit code 0 ok, 1 a verification bound broken, 2 a bad command line, 3 an I/O failure. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        PrintWriter outWriter = new PrintWriter(out, true);
        PrintWriter errWriter = new PrintWriter(err, true);
        CommandLine commandLine = new CommandLine(new TestDataCommand(out, err))
                .registerConverter(Duration.class, TimeUtils::parseDuration)
                .registerConverter(Instant.class, Instant::parse)
                .setOut(outWriter)
                .setErr(errWriter)
                .setParameterExceptionHandler((e, arguments) -> {
                    CommandSpec spec = e.getCommandLine().getCommandSpec();
                    errWriter.println(spec.qualifiedName() + ": " + e.getMessage());
                    UnmatchedArgumentException.printSuggestions(e, errWriter);
                    errWriter.println("Run '" + spec.qualifiedName() + " --help' for the options.");
                    return spec.exitCodeOnInvalidInput();
                })
                .setExecutionExceptionHandler((e, command, parseResult) -> {
                    errWriter.println(command.getCommandSpec().qualifiedName() + " failed: " + e);
                    return 3;
                });
        try {
            return commandLine.execute(args);
        } finally {
            outWriter.flush();
            errWriter.flush();
        }
    }

    /** Where a command writes its results. */
    PrintStream out() {
        return out;
    }

    /** Where a command writes its progress. */
    PrintStream err() {
        return err;
    }
}
