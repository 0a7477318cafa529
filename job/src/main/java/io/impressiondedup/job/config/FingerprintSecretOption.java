package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.FINGERPRINT_SECRET_FILE;

import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The secret file {@code --fingerprint-secret-file} names, read where the options are parsed (client, JobManager, the
 * state tools) so that a missing or malformed file fails at start, naming the option and the file, never the secret.
 */
public final class FingerprintSecretOption {

    private FingerprintSecretOption() {}

    /**
     * The file {@code --fingerprint-secret-file} names, read here to validate it and take its check value: the job
     * carries only this, and its tasks read the file again where they open. Fails as {@link #readSecret}.
     */
    public static FingerprintSecretFile readSecretFile(String file) {
        return FingerprintSecretFile.of(file, readSecret(file));
    }

    /** The secret in the file {@code --fingerprint-secret-file} names; fails naming the option and the file, never the secret. */
    public static FingerprintSecret readSecret(String file) {
        try {
            return FingerprintSecret.read(Path.of(file));
        } catch (IOException e) {
            throw new InvalidOptionException("Cannot read --" + FINGERPRINT_SECRET_FILE.key() + " " + file + ": " + e, e);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid --" + FINGERPRINT_SECRET_FILE.key() + " " + file + ": " + e.getMessage(), e);
        }
    }
}
