package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.k4j.apiserver.pki.CertificateAndKey;
import io.k4j.apiserver.pki.Pem;
import io.k4j.apiserver.pki.TlsContexts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * A JDK HTTP/2 client with the server address, CA and client certificate of a kubeconfig's first cluster and user:
 * requests straight from Java, without a kubectl process or a fabric8 client. Thread-safe.
 */
public record KubeconfigHttpClient(URI server, HttpClient client) {
    public KubeconfigHttpClient {
        requireNonNull(server, "server is null");
        requireNonNull(client, "client is null");
    }

    public static KubeconfigHttpClient of(Path kubeconfig) {
        try {
            JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(kubeconfig));
            JsonNode cluster = config.path("clusters").path(0).path("cluster");
            JsonNode user = config.path("users").path(0).path("user");
            X509Certificate authority = Pem.decodeCertificate(decode(cluster, "certificate-authority-data"));
            CertificateAndKey identity = new CertificateAndKey(
                    Pem.decodeCertificate(decode(user, "client-certificate-data")), Pem.decodePrivateKey(decode(user, "client-key-data")));
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_2)
                    .sslContext(TlsContexts.clientContext(List.of(authority), Optional.of(identity)))
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            return new KubeconfigHttpClient(URI.create(cluster.path("server").asText()), client);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String decode(JsonNode node, String field) {
        String value = node.path(field).asText("");
        if (value.isEmpty()) {
            throw new IllegalStateException("kubeconfig has no " + field);
        }
        return new String(Base64.getDecoder().decode(value), StandardCharsets.US_ASCII);
    }
}
