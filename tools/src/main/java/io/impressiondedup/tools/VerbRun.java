package io.impressiondedup.tools;

import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import java.io.PrintStream;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The life of one run of a verb, the same for every verb: {@code --help} prints its options (exit 0);
 * a bad command line, found while parsing or later (a savepoint written with another secret), fails
 * naming the option (exit 2); anything else fails with the deepest cause on stderr (exit 1), and with
 * {@code --verbose} ({@link ToolOptions#VERBOSE}, which every verb takes) its stack trace too and the log of the
 * libraries the verb runs ({@link ToolLog}).
 */
public final class VerbRun {

    /** Reads and checks the command line; throws {@link InvalidOptionException} naming the option. */
    @FunctionalInterface
    public interface Parse<S> {
        S parse(String[] args);
    }

    /** Does the verb's work; returns the exit code. */
    @FunctionalInterface
    public interface Work<S> {
        int run(S settings, PrintStream out, PrintStream err) throws Exception;
    }

    private VerbRun() {}

    public static <S> int run(String verb, String usage, String summary, List<ConfigOption<?>> options, boolean kafkaProperties,
            String[] args, PrintStream out, PrintStream err, Parse<S> parse, Work<S> work) {
        if (!options.contains(ToolOptions.VERBOSE)) {
            throw new IllegalArgumentException("Verb " + verb + " does not take --" + ToolOptions.VERBOSE.key() + ": every verb must");
        }
        if (OptionSources.helpRequested(args)) {
            out.print(OptionSources.help(usage, summary, options, kafkaProperties));
            return 0;
        }
        boolean verbose = false;
        try {
            S settings = parse.parse(args);
            verbose = Configuration.fromMap(OptionSources.fromArguments(args, options, kafkaProperties)).get(ToolOptions.VERBOSE);
            try (ToolLog log = ToolLog.forRun(verbose)) {
                return work.run(settings, out, err);
            }
        } catch (InvalidOptionException e) {
            err.println(verb + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println(verb + " failed: " + rootMessage(e));
            if (verbose) {
                e.printStackTrace(err);
            } else {
                err.println("(--" + ToolOptions.VERBOSE.key() + " prints the stack trace and the log of Flink and the Kafka clients)");
            }
            return 1;
        }
    }

    /** The deepest cause's message: what went wrong, not the frameworks it went through. */
    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        return root == e ? message : message + " (caused by " + root + ")";
    }
}
