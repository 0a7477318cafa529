package io.impressiondedup.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * HTTPS with basic authentication in front of a plain-http registry, as a registry is exposed in production: TLS with a
 * certificate of its own (made by the JDK's keytool for 127.0.0.1, its PEM at {@link #certificatePem}), and every
 * request without the expected {@code Authorization} answered 401; the others forwarded as they are to the registry,
 * and its answer returned as it is.
 */
final class TlsBasicAuthProxy implements AutoCloseable {

    private static final String STORE_PASSWORD = "changeit";

    private final HttpsServer server;
    private final Path certificatePem;
    private final AtomicInteger authorized = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    private TlsBasicAuthProxy(HttpsServer server, Path certificatePem) {
        this.server = server;
        this.certificatePem = certificatePem;
    }

    /** Serves {@code upstream} (an http://host:port) over TLS to callers with {@code user}:{@code password}; keys in {@code dir}. */
    static TlsBasicAuthProxy start(String upstream, Path dir, String user, String password) throws Exception {
        Path keyStore = dir.resolve("registry.p12");
        Path pem = dir.resolve("registry.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "registry", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        run(keytool, "-exportcert", "-rfc", "-alias", "registry", "-keystore", keyStore.toString(), "-storepass", STORE_PASSWORD,
                "-file", pem.toString());
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(keyStore.toFile())) {
            keys.load(in, STORE_PASSWORD.toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, STORE_PASSWORD.toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keyManagers.getKeyManagers(), null, null);

        HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(Executors.newFixedThreadPool(4));
        TlsBasicAuthProxy proxy = new TlsBasicAuthProxy(server, pem);
        String expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        server.createContext("/", exchange -> proxy.forward(exchange, upstream, expected, client));
        server.start();
        return proxy;
    }

    /** The proxy's https://127.0.0.1:port. */
    String url() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The PEM of the proxy's own certificate, to trust. */
    Path certificatePem() {
        return certificatePem;
    }

    int authorizedRequests() {
        return authorized.get();
    }

    int refusedRequests() {
        return refused.get();
    }

    private void forward(HttpExchange exchange, String upstream, String expected, HttpClient client) throws IOException {
        try (exchange) {
            if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                refused.incrementAndGet();
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"registry\"");
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            authorized.incrementAndGet();
            byte[] body = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstream + exchange.getRequestURI()))
                    .timeout(Duration.ofSeconds(30)).method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
            if (contentType != null) {
                request.header("Content-Type", contentType);
            }
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            response.headers().firstValue("Content-Type").ifPresent(type -> exchange.getResponseHeaders().add("Content-Type", type));
            exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1 : response.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(response.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
