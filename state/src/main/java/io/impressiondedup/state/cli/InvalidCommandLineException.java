package io.impressiondedup.state.cli;

/** A command line that cannot be run; the message names the option and what was expected. */
public final class InvalidCommandLineException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidCommandLineException(String message) {
        super(message);
    }

    public InvalidCommandLineException(String message, Throwable cause) {
        super(message, cause);
    }
}
