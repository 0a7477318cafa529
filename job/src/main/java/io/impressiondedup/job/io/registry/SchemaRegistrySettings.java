package io.impressiondedup.job.io.registry;

import io.impressiondedup.job.io.avro.AvroWirePrefix;
import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how the job fetches the writer schemas of Avro input: the registry's API base URL, its API, the wire prefix
 * whose id names a value's schema, the credentials and trusted certificates the client presents and checks, and how
 * long one request may take. Read where the options are parsed (the credentials file and the certificates too) and
 * carried to the TaskManagers in the job, never in state; {@link #toString} never shows the password.
 */
public final class SchemaRegistrySettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String baseUrl;
    private final SchemaRegistryApi api;
    private final AvroWirePrefix prefix;
    private final String user;
    private final String password;
    private final String trustedCertificatesPem;
    private final long requestTimeoutMillis;

    private SchemaRegistrySettings(Builder builder) {
        this.baseUrl = builder.baseUrl;
        this.api = builder.api;
        this.prefix = builder.prefix;
        this.user = builder.user;
        this.password = builder.password;
        this.trustedCertificatesPem = builder.trustedCertificatesPem;
        this.requestTimeoutMillis = builder.requestTimeout.toMillis();
    }

    public static Builder builder(String baseUrl, SchemaRegistryApi api, AvroWirePrefix prefix) {
        return new Builder(baseUrl, api, prefix);
    }

    /** The API's base URL, without a trailing slash. */
    public String baseUrl() {
        return baseUrl;
    }

    public SchemaRegistryApi api() {
        return api;
    }

    public AvroWirePrefix prefix() {
        return prefix;
    }

    /** The URL that answers the schema of {@code id}, of the kind the prefix carries (the first, for headers). */
    public URI lookupUri(long id) {
        return lookupUri(SchemaIdKind.of(prefix).get(0), id);
    }

    /** The URL that answers the schema of {@code id}, an id of {@code kind}. */
    public URI lookupUri(SchemaIdKind kind, long id) {
        return URI.create(baseUrl + api.lookupPath(kind, id));
    }

    /** The basic-auth user, or null for none. */
    String user() {
        return user;
    }

    String password() {
        return password;
    }

    /** PEM certificates the registry's TLS certificate must chain to (instead of the JVM's trust store), or null. */
    String trustedCertificatesPem() {
        return trustedCertificatesPem;
    }

    public Duration requestTimeout() {
        return Duration.ofMillis(requestTimeoutMillis);
    }

    /** For logs: the URL, API, prefix, and whether credentials and certificates are set; never the password. */
    @Override
    public String toString() {
        return baseUrl + " (" + api + " API, ids of the " + prefix + " wire prefix" + (user == null ? "" : ", user " + user + ", password <redacted>")
                + (trustedCertificatesPem == null ? "" : ", own trusted certificates") + ", request timeout " + requestTimeout() + ")";
    }

    /** Checks the settings in {@link #build()}. */
    public static final class Builder {
        private final String baseUrl;
        private final SchemaRegistryApi api;
        private final AvroWirePrefix prefix;
        private String user;
        private String password;
        private String trustedCertificatesPem;
        private Duration requestTimeout = Duration.ofSeconds(10);

        private Builder(String baseUrl, SchemaRegistryApi api, AvroWirePrefix prefix) {
            String url = Objects.requireNonNull(baseUrl, "baseUrl").strip();
            while (url.endsWith("/")) {
                url = url.substring(0, url.length() - 1);
            }
            this.baseUrl = url;
            this.api = Objects.requireNonNull(api, "api");
            this.prefix = Objects.requireNonNull(prefix, "prefix");
        }

        /** Basic authentication with {@code user} and {@code password}. */
        public Builder basicAuth(String user, String password) {
            this.user = Objects.requireNonNull(user, "user");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** The PEM certificates (one or more CAs, or the registry's own) that the registry's TLS certificate must chain to. */
        public Builder trustedCertificatesPem(String pem) {
            this.trustedCertificatesPem = Objects.requireNonNull(pem, "pem");
            return this;
        }

        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the URL is no absolute http(s) URL, the API cannot look up the prefix's ids,
         *     credentials are sent over plain http, the certificates are given for plain http, or the timeout is not positive
         */
        public SchemaRegistrySettings build() {
            URI uri;
            try {
                uri = new URI(baseUrl);
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("'" + baseUrl + "' is no URL: " + e.getMessage(), e);
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                throw new IllegalArgumentException("'" + baseUrl + "' is no http:// or https:// URL with a host");
            }
            if (uri.getUserInfo() != null) {
                throw new IllegalArgumentException("the URL holds credentials ('user:password@'); give them in a credentials file instead,"
                        + " which the job never logs");
            }
            if (!prefix.carriesSchemaId()) {
                throw new IllegalArgumentException("the " + prefix + " wire prefix carries no schema id to look up");
            }
            SchemaIdKind.of(prefix).forEach(kind -> api.lookupPath(kind, 1)); // throws for an id the API cannot look up
            if (user != null && scheme.equals("http")) {
                throw new IllegalArgumentException("credentials would be sent in clear text to '" + baseUrl + "': use https");
            }
            if (trustedCertificatesPem != null) {
                if (scheme.equals("http")) {
                    throw new IllegalArgumentException("trusted certificates are given, but '" + baseUrl + "' is plain http");
                }
                SchemaRegistryClient.trusting(trustedCertificatesPem); // throws for text that holds no certificate
            }
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("the request timeout must be positive, but is " + requestTimeout);
            }
            return new SchemaRegistrySettings(this);
        }
    }
}
