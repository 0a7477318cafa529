package io.impressiondedup.state.plan;

import io.impressiondedup.state.cli.CommandLine;
import io.impressiondedup.state.cli.CommandLineOptions;
import io.impressiondedup.state.cli.InvalidCommandLineException;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.PrintStream;
import java.time.Duration;
import java.time.ZoneId;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The {@code plan} command: prints the {@link CapacityReport} of a planned deployment. */
public final class PlanCommand {

    public static final ConfigOption<Long> DAILY_VOLUME = ConfigOptions.key("daily-volume")
            .longType()
            .noDefaultValue()
            .withDescription("Expected unique impressions per bucket (per day with day buckets), over all shards.");
    public static final ConfigOption<Double> FPP = ConfigOptions.key("fpp")
            .doubleType()
            .defaultValue(DedupPlan.DEFAULT_FPP)
            .withDescription("End-to-end false-positive rate: the share of unique impressions wrongly dropped.");
    public static final ConfigOption<Duration> RETENTION = ConfigOptions.key("retention")
            .durationType()
            .defaultValue(TimeBuckets.DEFAULT_RETENTION)
            .withDescription("How long after its event time an impression is remembered (e.g. 2d, 36h).");
    public static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key("allowed-lateness")
            .durationType()
            .defaultValue(TimeBuckets.DEFAULT_ALLOWED_LATENESS)
            .withDescription("How far behind the watermark a record is still deduplicated normally; keeps buckets that much longer.");
    public static final ConfigOption<Duration> BUCKET_SIZE = ConfigOptions.key("bucket-size")
            .durationType()
            .defaultValue(TimeBuckets.DEFAULT_BUCKET_SIZE)
            .withDescription("Time bucket size: divides a day or is whole days.");
    public static final ConfigOption<Integer> SHARDS = ConfigOptions.key("shards")
            .intType()
            .defaultValue(128)
            .withDescription("Shards of the request-id hash (the job's max parallelism by default).");
    public static final ConfigOption<Integer> KEY_BITS = ConfigOptions.key("key-bits")
            .intType()
            .defaultValue(FingerprintScheme.DEFAULT_KEY_BITS)
            .withDescription("Bits of the MD5 digest kept as the request's identity, 32..128.");
    public static final ConfigOption<Integer> PAGE_BYTES = ConfigOptions.key("page-bytes")
            .intType()
            .defaultValue(DedupPlan.DEFAULT_PAGE_BYTES)
            .withDescription("Bytes per state page: a power of two, 64..65536.");
    public static final ConfigOption<String> ZONE = ConfigOptions.key("zone")
            .stringType()
            .defaultValue("UTC")
            .withDescription("Time zone whose midnight bucket boundaries align to.");

    static final CommandLineOptions OPTIONS = new CommandLineOptions(
                    "plan",
                    "Prints the Bloom filter sizing, memory, checkpoint size and truncation collisions of a planned"
                            + " deployment, next to the state exact dedup would need.")
            .add(DAILY_VOLUME, FPP, RETENTION, ALLOWED_LATENESS, BUCKET_SIZE, SHARDS, KEY_BITS, PAGE_BYTES, ZONE)
            .required(DAILY_VOLUME)
            .require(DAILY_VOLUME, v -> v > 0, "a positive number of impressions")
            .require(FPP, p -> p > 0 && p < 0.5, "a rate in (0, 0.5), e.g. 0.001")
            .require(RETENTION, d -> d.toMillis() > 0, "a positive duration, e.g. 2d")
            .require(ALLOWED_LATENESS, d -> !d.isNegative(), "a non-negative duration, e.g. 1d")
            .require(BUCKET_SIZE, PlanCommand::isBucketSize, "a duration of at least 1min that divides a day or is whole days")
            .require(SHARDS, s -> s > 0, "a positive number of shards")
            .require(KEY_BITS, b -> b >= FingerprintScheme.MIN_KEY_BITS && b <= FingerprintScheme.MAX_KEY_BITS, "an integer in [32, 128]")
            .require(PAGE_BYTES, b -> b >= 64 && b <= 65536 && Integer.bitCount(b) == 1, "a power of two in [64, 65536]")
            .require(ZONE, z -> ZoneId.of(z) != null, "a time zone id such as UTC, +02:00 or Europe/Paris");

    private PlanCommand() {}

    /** Whether {@code size} is a valid {@link TimeBuckets} size. */
    public static boolean isBucketSize(Duration size) {
        long millis = size.toMillis();
        long day = Duration.ofDays(1).toMillis();
        return millis >= Duration.ofMinutes(1).toMillis() && (day % millis == 0 || millis % day == 0);
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit code (0 ok, 2 bad command line). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            CommandLine commandLine = OPTIONS.parse(args);
            if (commandLine.helpRequested()) {
                out.print(OPTIONS.help());
                return 0;
            }
            out.print(new CapacityReport(toPlan(commandLine)).render());
            return 0;
        } catch (InvalidCommandLineException e) {
            err.println("plan: " + e.getMessage());
            return 2;
        }
    }

    static DedupPlan toPlan(CommandLine commandLine) {
        try {
            TimeBuckets buckets = new TimeBuckets(
                    commandLine.get(BUCKET_SIZE), commandLine.get(RETENTION), commandLine.get(ALLOWED_LATENESS),
                    ZoneId.of(commandLine.get(ZONE)));
            return DedupPlan.builder()
                    .capacityPerBucket(commandLine.getRequired(DAILY_VOLUME))
                    .fpp(commandLine.get(FPP))
                    .shards(commandLine.get(SHARDS))
                    .timeBuckets(buckets)
                    .fingerprintScheme(FingerprintScheme.withKeyBits(commandLine.get(KEY_BITS)))
                    .pageBytes(commandLine.get(PAGE_BYTES))
                    .build();
        } catch (InvalidCommandLineException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InvalidCommandLineException(e.getMessage(), e);
        }
    }
}
