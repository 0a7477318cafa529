package io.impressiondedup.job.io.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * One HTTP request to the registry for the schema of one id ({@link #fetch}), through the API of the settings. No retry
 * here: {@link WriterSchemas} decides what an answer means for the records waiting on it.
 *
 * <p>Answers: 200 with the schema's text (the {@code schema} field of the Confluent API's JSON; Apicurio's body as it
 * is) is {@link Answer#found}; 404 is {@link Answer#unknown}, the registry saying it has no such id. Anything else
 * (no connection, a timeout, 5xx, 401 or 403, a 200 without a schema) is an {@link IOException} naming the URL and what
 * came back: the registry is not answering the question, and the records wait.
 */
final class SchemaRegistryClient {

    /** The most of an error body quoted in a message. */
    private static final int QUOTED_BODY_CHARS = 300;

    private final SchemaRegistrySettings settings;
    private final HttpClient http;
    private final String authorization;
    private final ObjectMapper json = new ObjectMapper();

    SchemaRegistryClient(SchemaRegistrySettings settings) {
        this.settings = settings;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(settings.requestTimeout()).followRedirects(HttpClient.Redirect.NORMAL);
        if (settings.trustedCertificatesPem() != null) {
            builder.sslContext(trusting(settings.trustedCertificatesPem()));
        }
        this.http = builder.build();
        this.authorization = settings.user() == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (settings.user() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8));
    }

    /** The registry's answer for {@code id}: its schema, or that it has none. */
    record Answer(String schemaText, String unknownReason) {
        static Answer found(String schemaText) {
            return new Answer(schemaText, null);
        }

        static Answer unknown(String reason) {
            return new Answer(null, reason);
        }

        boolean isFound() {
            return schemaText != null;
        }
    }

    /**
     * Asks the registry for the schema of {@code id}, an id of {@code kind}.
     *
     * @throws IOException if the registry gave no answer about the id (see the class comment)
     * @throws InterruptedException if the thread was interrupted while waiting (the task is being cancelled)
     */
    Answer fetch(SchemaIdKind kind, long id) throws IOException, InterruptedException {
        URI uri = settings.lookupUri(kind, id);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(settings.requestTimeout()).GET()
                .header("Accept", settings.api() == SchemaRegistryApi.CONFLUENT
                        ? "application/vnd.schemaregistry.v1+json, application/json" : "*/*");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        int status = response.statusCode();
        if (status == 404) {
            return Answer.unknown("the registry answered 404 for GET " + uri + ": " + quoted(response.body()));
        }
        if (status != 200) {
            throw new IOException("HTTP " + status + " for GET " + uri + ": " + quoted(response.body()));
        }
        if (settings.api() == SchemaRegistryApi.APICURIO) {
            return Answer.found(response.body());
        }
        JsonNode schema;
        try {
            schema = json.readTree(response.body()).path("schema");
        } catch (IOException e) {
            throw new IOException("HTTP 200 for GET " + uri + " is not JSON: " + quoted(response.body()), e);
        }
        if (!schema.isTextual()) {
            throw new IOException("HTTP 200 for GET " + uri + " has no \"schema\" text: " + quoted(response.body()));
        }
        return Answer.found(schema.asText());
    }

    /**
     * Asks the API a question with no id in it, to learn whether the options reach it: {@code GET <url>/schemas/types}
     * (Confluent), {@code GET <url>/system/info} (Apicurio). The answer's status, or an exception saying why there was
     * none (no connection, TLS, a timeout).
     */
    HttpResponse<String> probe() throws IOException, InterruptedException {
        URI uri = URI.create(settings.baseUrl() + (settings.api() == SchemaRegistryApi.CONFLUENT ? "/schemas/types" : "/system/info"));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(settings.requestTimeout()).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    static String quoted(String body) {
        String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").strip();
        return "'" + (oneLine.length() > QUOTED_BODY_CHARS ? oneLine.substring(0, QUOTED_BODY_CHARS) + "..." : oneLine) + "'";
    }

    /** A TLS context that trusts exactly the certificates in {@code pem}. */
    static SSLContext trusting(String pem) {
        try {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException("no certificate in the PEM text");
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("registry-" + i++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("the trusted certificates are no PEM X.509 certificates: " + e.getMessage(), e);
        }
    }
}
