package io.impressiondedup.job.config;

/**
 * A job option (from the program arguments, a properties file or Flink's configuration) that is
 * missing, unknown or invalid. The message names the option and what was expected; the job fails at
 * start with it, before anything is submitted.
 */
public final class InvalidOptionException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidOptionException(String message) {
        super(message);
    }

    public InvalidOptionException(String message, Throwable cause) {
        super(message, cause);
    }
}
