package io.impressiondedup.tools;

import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.OptionSources;
import java.io.PrintStream;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;

/**
 * The life of one run of a verb, the same for every verb: {@code --help} prints its options (exit 0);
 * a bad command line, found while parsing or later (a savepoint written with another secret), fails
 * naming the option (exit 2); anything else fails with the deepest cause and the stack trace on
 * stderr (exit 1).
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
        if (OptionSources.helpRequested(args)) {
            out.print(OptionSources.help(usage, summary, options, kafkaProperties));
            return 0;
        }
        try {
            S settings = parse.parse(args);
            return work.run(settings, out, err);
        } catch (InvalidOptionException e) {
            err.println(verb + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println(verb + " failed: " + rootMessage(e));
            e.printStackTrace(err);
            return 1;
        }
    }

    /** The deepest cause's message: what went wrong, not the frameworks it went through. */
    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (caused by " + root + ")";
    }
}
