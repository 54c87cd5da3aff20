package io.k4j.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * An HTTP/2 client authenticated with the client certificate of a kubeconfig, for load generation. Each instance
 * holds one HTTP client (one connection pool); thread-safe.
 */
final class ClusterClient {
    private final URI server;
    private final HttpClient httpClient;

    private ClusterClient(URI server, HttpClient httpClient) {
        this.server = requireNonNull(server, "server is null");
        this.httpClient = requireNonNull(httpClient, "httpClient is null");
    }

    static ClusterClient fromKubeconfig(Path kubeconfig) {
        try {
            JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(kubeconfig));
            JsonNode cluster = config.path("clusters").path(0).path("cluster");
            JsonNode user = config.path("users").path(0).path("user");
            CertificateFactory certificates = CertificateFactory.getInstance("X.509");
            X509Certificate ca = (X509Certificate) certificates.generateCertificate(new ByteArrayInputStream(decode(cluster, "certificate-authority-data")));
            X509Certificate clientCertificate = (X509Certificate) certificates.generateCertificate(new ByteArrayInputStream(decode(user, "client-certificate-data")));
            PrivateKey clientKey = privateKey(new String(decode(user, "client-key-data"), java.nio.charset.StandardCharsets.US_ASCII));

            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            char[] password = "bench".toCharArray();
            keys.setKeyEntry("client", clientKey, password, new Certificate[] {clientCertificate});
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_2)
                    .sslContext(tls)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            return new ClusterClient(URI.create(cluster.path("server").asText()), client);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot build TLS client from " + kubeconfig + ": " + e.getMessage(), e);
        }
    }

    private static byte[] decode(JsonNode node, String field) {
        String value = node.path(field).asText("");
        if (value.isEmpty()) {
            throw new IllegalStateException("kubeconfig has no " + field);
        }
        return Base64.getDecoder().decode(value);
    }

    private static PrivateKey privateKey(String pem) throws IOException {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object parsed = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (parsed instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
            if (parsed instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IllegalStateException("unsupported private key in kubeconfig: " + (parsed == null ? "none" : parsed.getClass().getSimpleName()));
        }
    }

    HttpResponse<String> send(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json");
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        try {
            return httpClient.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Sends and requires a 2xx answer. */
    String require(String method, String path, String body) {
        HttpResponse<String> response = send(method, path, body);
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    HttpClient httpClient() {
        return httpClient;
    }

    URI server() {
        return server;
    }
}
