package io.impressiondedup.bench.parse;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The generator's Avro schema served as a Confluent-API registry answers it, {@code GET /schemas/ids/1} on
 * 127.0.0.1, for the parse benchmarks' {@link InputShape#AVRO_REGISTRY}: the parser fetches it once per JVM and keeps it,
 * so what is measured is the per-record cost of reading through a registry's schemas (the id's lookup, its counter), not
 * the registry. Started on first use, on daemon threads; the tests of the registry itself run a real one (SchemaRegistryIT).
 */
final class ServedSchema {

    private static String url;

    private ServedSchema() {}

    /** The base URL of the Confluent API serving id 1. */
    static synchronized String url(String schemaText) {
        if (url == null) {
            // Started from a daemon thread, whose daemon status the server's dispatcher thread inherits: the benchmark's
            // JVM ends when its main thread does.
            Thread starter = new Thread(() -> url = serve(schemaText), "served-schema-starter");
            starter.setDaemon(true);
            starter.start();
            try {
                starter.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (url == null) {
                throw new IllegalStateException("the schema server did not start");
            }
        }
        return url;
    }

    private static String serve(String schemaText) {
        {
            try {
                HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
                byte[] body = ("{\"schema\":" + quote(schemaText) + "}").getBytes(StandardCharsets.UTF_8);
                server.createContext("/schemas/ids/1", exchange -> {
                    exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
                server.start();
                return "http://127.0.0.1:" + server.getAddress().getPort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String quote(String text) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
