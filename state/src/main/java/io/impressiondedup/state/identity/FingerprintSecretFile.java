package io.impressiondedup.state.identity;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the fingerprint secret is ({@code --fingerprint-secret-file}) and the check value it must have: what a job
 * graph carries instead of the secret, so that neither the secret nor its key block reaches the serialized job graph,
 * the JobManager's HA store or a log of it. The client reads the file once to validate it and take its check value
 * ({@link #of}); each task reads it again where it opens ({@link #read}) and refuses a file that is missing,
 * unreadable or holds another secret than the client saw. So the file must be at the same path on every machine
 * that runs tasks (deploy/README.md says how, for a standalone cluster and for Kubernetes).
 */
public final class FingerprintSecretFile implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final long checkValue;

    private FingerprintSecretFile(String path, long checkValue) {
        this.path = Objects.requireNonNull(path, "path");
        this.checkValue = checkValue;
    }

    /** The file at {@code path}, expected to hold {@code secret} (read from it by the caller). */
    public static FingerprintSecretFile of(String path, FingerprintSecret secret) {
        return new FingerprintSecretFile(path, secret.checkValue());
    }

    public String path() {
        return path;
    }

    /** The check value of the secret the client read ({@link FingerprintSecret#checkValue()}). */
    public long checkValue() {
        return checkValue;
    }

    /**
     * The secret in the file, read now, here. Fails with an {@link IllegalStateException} naming {@code
     * --fingerprint-secret-file} and the path (never the secret) if the file cannot be read, is no valid secret, or holds
     * a secret whose check value is not the one the client computed.
     */
    public FingerprintSecret read() {
        FingerprintSecret secret;
        try {
            secret = FingerprintSecret.read(Path.of(path));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("Cannot read --fingerprint-secret-file " + path + " on this machine: " + e
                    + ". The file must be at the same path, with the same contents, wherever the job's tasks run.", e);
        }
        if (secret.checkValue() != checkValue) {
            throw new IllegalStateException("--fingerprint-secret-file " + path + " on this machine holds another secret (check value "
                    + FingerprintSecret.describeCheckValue(secret.checkValue()) + ") than the one the job was submitted with (check value "
                    + FingerprintSecret.describeCheckValue(checkValue) + "). The file must be the same wherever the job's tasks run.");
        }
        return secret;
    }

    /** The path and check value; the secret is not here to show. */
    @Override
    public String toString() {
        return "FingerprintSecretFile{" + path + ", check=" + FingerprintSecret.describeCheckValue(checkValue) + '}';
    }
}
