package io.impressiondedup.tools;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import io.impressiondedup.tools.bootstrap.BootstrapCommand;
import io.impressiondedup.tools.inspect.InspectCommand;
import io.impressiondedup.tools.replay.ReplayCommand;
import io.impressiondedup.tools.reshape.ReshapeCommand;

/**
 * {@code java -jar dedup-tools.jar <verb> [--option value ...]}: the dedup job's tools; the state tools are
 * each a Flink State Processor API program run on a local Flink in this JVM.
 *
 * <ul>
 *   <li>{@code inspect}: per bucket and shard, what the filters hold and their estimated FPP; with queries,
 *       whether the state would drop given impressions as duplicates and in which bucket they were found
 *       ({@link InspectCommand});
 *   <li>{@code bootstrap}: a savepoint of impressions already seen, from a Kafka topic or a file of rows
 *       ({@link BootstrapCommand});
 *   <li>{@code reshape}: a savepoint rewritten for another shard count ({@link ReshapeCommand});
 *   <li>{@code replay}: selected dead letters re-injected into their original topic, a plain Kafka client
 *       program ({@link ReplayCommand}).
 * </ul>
 *
 * <p>Exit codes: 0 done, 1 failed (the message says why), 2 bad command line (the message names the option).
 */
public final class DedupTools {

    /** A verb: runs with the arguments after it, returns the exit code. */
    @FunctionalInterface
    interface Verb {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    private static final Map<String, Verb> VERBS = new LinkedHashMap<>();

    static {
        VERBS.put("inspect", InspectCommand::run);
        VERBS.put("bootstrap", BootstrapCommand::run);
        VERBS.put("reshape", ReshapeCommand::run);
        VERBS.put("replay", ReplayCommand::run);
    }

    /** How long a verb's exit waits for its MiniClusters to shut down. */
    private static final Duration EXIT_WAIT = Duration.ofSeconds(30);

    private DedupTools() {}

    /**
     * Runs a verb and exits with its code, always: a local Flink leaves threads that are not daemons (its actor system's
     * dispatchers; a State Processor API writer's thread waiting for elements after its job was cancelled), and a JVM
     * whose main method returned or threw would wait for them forever. Before it exits, the verb's MiniClusters have
     * shut down ({@link ToolEnvironment#awaitShutdown}).
     */
    public static void main(String[] args) {
        int exit;
        try {
            exit = run(args, System.out, System.err);
        } catch (Throwable unexpected) { // an Error no verb catches (out of memory, say)
            System.err.println("dedup-tools failed: " + unexpected);
            exit = 1;
        }
        ToolEnvironment.awaitShutdown(EXIT_WAIT);
        System.exit(exit);
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            (args.length == 0 ? err : out).print(usage());
            return args.length == 0 ? 2 : 0;
        }
        Verb verb = VERBS.get(args[0]);
        if (verb == null) {
            err.println("Unknown verb '" + args[0] + "'.");
            err.print(usage());
            return 2;
        }
        return verb.run(Arrays.copyOfRange(args, 1, args.length), out, err);
    }

    static String usage() {
        return "Usage: java -jar dedup-tools.jar <verb> [--option value ...]   (<verb> --help lists its options)\n"
                + "  inspect    what a savepoint's filters hold; with --query-file or --request-id, whether impressions would be"
                + " dropped\n"
                + "  bootstrap  write a savepoint of impressions already seen, from a Kafka topic or a file of rows\n"
                + "  reshape    rewrite a savepoint for another shard count\n"
                + "  replay     re-inject selected dead letters into their original topic (a Kafka client, no Flink)\n";
    }
}
