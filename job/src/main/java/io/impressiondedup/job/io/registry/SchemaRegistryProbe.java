package io.impressiondedup.job.io.registry;

import java.io.IOException;
import java.net.http.HttpResponse;
import javax.net.ssl.SSLException;

/**
 * What a question to the registry with no id in it says about the options that reach it, asked once at submission: the
 * job then fails naming the option at fault, rather than start and wait on a registry it can never read.
 */
public final class SchemaRegistryProbe {

    /** What the probe found. */
    public enum Outcome {
        /** The API answered 200. */
        REACHED,
        /** 401 or 403: the credentials are missing or refused. */
        REFUSED_CREDENTIALS,
        /** The TLS handshake failed: the registry's certificate is not trusted (or it does not speak TLS). */
        TLS_FAILED,
        /** Another status: most often a URL that is not the API's base (404). */
        NOT_THE_API,
        /** No answer: no connection, or a timeout. The registry may be down for now. */
        UNREACHABLE
    }

    /** The outcome and what it rests on, for a message. */
    public record Result(Outcome outcome, String detail) {}

    private SchemaRegistryProbe() {}

    /** Asks the registry of {@code settings}; never throws for what the registry does. */
    public static Result probe(SchemaRegistrySettings settings) throws InterruptedException {
        SchemaRegistryClient client = new SchemaRegistryClient(settings);
        try {
            HttpResponse<String> response = client.probe();
            int status = response.statusCode();
            String detail = "HTTP " + status + " for GET " + response.uri() + ": " + SchemaRegistryClient.quoted(response.body());
            if (status == 200) {
                return new Result(Outcome.REACHED, detail);
            }
            return new Result(status == 401 || status == 403 ? Outcome.REFUSED_CREDENTIALS : Outcome.NOT_THE_API, detail);
        } catch (IOException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof SSLException) {
                    return new Result(Outcome.TLS_FAILED, cause.toString());
                }
            }
            return new Result(Outcome.UNREACHABLE, e.toString());
        }
    }
}
