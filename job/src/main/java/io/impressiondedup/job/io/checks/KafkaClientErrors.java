package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.KafkaSecrets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * What a Kafka client's failure means in the job's own terms: the option to fix, not a stack trace
 * of Kafka's internals. For failures to create a client (a bad value, an unresolvable or malformed
 * bootstrap address, a JAAS or keystore problem) and failures to authenticate; authorization
 * failures are the checks' ({@link KafkaChecks}, {@link AclProbes}: they name the ACL, {@link KafkaAcls}).
 */
final class KafkaClientErrors {

    private static final Pattern CONFIGURATION = Pattern.compile("for configuration ([A-Za-z0-9._-]+)");
    private static final String SECURITY_OPTIONS = "--" + DedupJobOptions.KAFKA_PREFIX + "security.protocol, --"
            + DedupJobOptions.KAFKA_PREFIX + "sasl.* and --" + DedupJobOptions.KAFKA_PREFIX + "ssl.*";

    private KafkaClientErrors() {}

    /** A Kafka client could not be created from the job's options: which option, and Kafka's reason. */
    static InvalidOptionException clientCreation(RuntimeException failure, DedupJobConfig config) {
        String reasons = reasons(failure, config);
        String property = propertyAtFault(reasons, config);
        String fix = property == null ? "Check --" + DedupJobOptions.BOOTSTRAP_SERVERS.key() + " and " + SECURITY_OPTIONS + "."
                : "Check " + optionOf(property) + ".";
        return new InvalidOptionException("Could not create a Kafka client for --" + DedupJobOptions.BOOTSTRAP_SERVERS.key() + " "
                + config.bootstrapServers() + ": " + reasons + ". " + fix);
    }

    /** If {@code failure} is (caused by) the brokers rejecting the job's credentials, the message saying so. */
    static InvalidOptionException authenticationOrNull(Throwable failure, DedupJobConfig config) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof AuthenticationException) {
                return new InvalidOptionException("The brokers at --" + DedupJobOptions.BOOTSTRAP_SERVERS.key() + " "
                        + config.bootstrapServers() + " rejected the job's credentials (" + redact(t.getMessage(), config) + "). Check "
                        + SECURITY_OPTIONS + " (the user and password are in --" + DedupJobOptions.KAFKA_PREFIX + "sasl.jaas.config).");
            }
        }
        return null;
    }

    /** Throws the message of {@link #authenticationOrNull}, if {@code failure} is the brokers rejecting the credentials. */
    static void throwIfAuthentication(Exception failure, DedupJobConfig config) {
        InvalidOptionException rejected = authenticationOrNull(failure, config);
        if (rejected != null) {
            throw rejected;
        }
    }

    /** Whether {@code failure} is, or is caused by, a {@code type} (an authorization failure of some resource). */
    static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** What an admin call's future failed with: the cause of an {@link ExecutionException}, else {@code failure} itself. */
    static Throwable rootCause(Throwable failure) {
        return failure instanceof ExecutionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** The messages of {@code failure} and its causes, without repeats, secrets redacted. */
    private static String reasons(Throwable failure, DedupJobConfig config) {
        Set<String> messages = new LinkedHashSet<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().startsWith("Failed to create new")) {
                messages.add(t.getMessage());
            }
        }
        if (messages.isEmpty()) {
            messages.add(failure.toString());
        }
        return redact(String.join(": ", messages), config);
    }

    /**
     * The client property a failure is about: the one Kafka names ("Invalid value x for configuration
     * y"), the bootstrap servers, the JAAS configuration, the property whose (non-secret) value the
     * message quotes (a keystore path), or any property of the admin client's the message names.
     */
    static String propertyAtFault(String reasons, DedupJobConfig config) {
        Matcher named = CONFIGURATION.matcher(reasons);
        if (named.find()) {
            return named.group(1);
        }
        if (reasons.contains(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)) {
            return AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG;
        }
        if (reasons.contains("JAAS")) {
            return "sasl.jaas.config";
        }
        // The longest value quoted wins: a keystore path over the SSL of security.protocol.
        String quoted = null;
        for (Map.Entry<String, String> given : config.kafkaProperties().entrySet()) {
            String value = given.getValue();
            if (!KafkaSecrets.isSecret(given.getKey()) && value != null && value.length() >= 3 && reasons.contains(value)
                    && (quoted == null || value.length() > config.kafkaProperties().get(quoted).length())) {
                quoted = given.getKey();
            }
        }
        if (quoted != null) {
            return quoted;
        }
        String longest = null;
        for (String name : AdminClientConfig.configNames()) {
            if (reasons.contains(name) && (longest == null || name.length() > longest.length())) {
                longest = name;
            }
        }
        return longest;
    }

    /** The job option that sets a client property. */
    static String optionOf(String property) {
        return property.equals(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) ? "--" + DedupJobOptions.BOOTSTRAP_SERVERS.key()
                : "--" + DedupJobOptions.KAFKA_PREFIX + property;
    }

    private static String redact(String text, DedupJobConfig config) {
        String redacted = String.valueOf(text);
        List<String> secrets = new ArrayList<>();
        config.kafkaProperties().forEach((property, value) -> {
            if (KafkaSecrets.isSecret(property) && value != null && !value.isEmpty()) {
                secrets.add(value);
            }
        });
        for (String secret : secrets) {
            redacted = redacted.replace(secret, "******");
        }
        return redacted;
    }
}
