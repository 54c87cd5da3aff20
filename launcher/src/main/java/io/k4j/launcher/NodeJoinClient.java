package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.Json;
import io.k4j.apiserver.nodejoin.NodeCredentials;
import io.k4j.apiserver.nodejoin.NodeCredentialsRequest;
import io.k4j.apiserver.nodejoin.NodeJoinHandler;
import io.k4j.apiserver.nodejoin.NodeJoinToken;
import io.k4j.apiserver.pki.Pem;
import io.k4j.apiserver.pki.TlsContexts;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The agent's side of the node join: asks the server at {@link NodeJoinHandler#PATH} for the node's credentials with
 * the join token. Before it sends the token it verifies the server: its certificate chain must hold the CA whose hash
 * the token names, and the server certificate must be signed by it and name the host (so a token never goes to another
 * server, as k3s's agent checks its {@code K10<hash>} token). Errors are {@link JoinException}s that say what to do.
 * Stateless and thread-safe.
 */
final class NodeJoinClient {
    private NodeJoinClient() {}

    /** A join that failed, with a message for the person running the agent. */
    static final class JoinException extends Exception {
        JoinException(String message, Throwable cause) {
            super(message, cause);
        }

        JoinException(String message) {
            super(message);
        }
    }

    static NodeCredentials join(URI server, NodeJoinToken token, NodeCredentialsRequest request, Duration timeout) throws JoinException {
        requireNonNull(server, "server is null");
        requireNonNull(request, "request is null");
        if (!"https".equals(server.getScheme()) || server.getHost() == null) {
            throw new JoinException("--server must be the server's https URL, e.g. https://10.0.0.1:6443, not \"" + server + "\"");
        }
        String caHash = token.caHash().orElseThrow(() -> new JoinException(
                "the token has no CA hash, so the server cannot be verified: pass the whole token from the server's <data-dir>/token (K4J…::node:…)"));
        HttpClient client = HttpClient.newBuilder()
                .sslContext(pinnedContext(caHash))
                .connectTimeout(timeout)
                .build();
        URI endpoint = server.resolve(NodeJoinHandler.PATH);
        HttpResponse<byte[]> response;
        try {
            response = client.send(HttpRequest.newBuilder(endpoint)
                            .timeout(timeout)
                            .header("Authorization", "Bearer " + token.format())
                            .header("Content-Type", "application/json")
                            .header("Accept", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(request.toJson()))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException | HttpTimeoutException e) {
            throw new JoinException("cannot reach the k4j server at " + server + " (" + describe(e)
                    + "): check --server and that `k4j server` runs there and its port is open", e);
        } catch (SSLException e) {
            throw new JoinException("cannot verify the k4j server at " + server + " (" + describe(e) + "): the token belongs to another "
                    + "cluster, or --server names a host the server's certificate does not (give the server --tls-san for it)", e);
        } catch (IOException e) {
            throw new JoinException("talking to the k4j server at " + server + " failed: " + describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JoinException("interrupted while joining " + server, e);
        }
        if (response.statusCode() == 401) {
            throw new JoinException("the server refused the join token (401 Unauthorized): pass the token from the server's <data-dir>/token "
                    + "(/var/lib/k4j/token by default) with --token or --token-file");
        }
        if (response.statusCode() != 200) {
            throw new JoinException("the server refused the join (" + response.statusCode() + "): " + statusMessage(response.body()));
        }
        NodeCredentials credentials;
        try {
            credentials = NodeCredentials.fromJson(response.body());
        } catch (RuntimeException e) {
            throw new JoinException("the server's answer holds no node credentials: " + e.getMessage(), e);
        }
        X509Certificate ca = Pem.decodeCertificate(credentials.caCertificate());
        if (!NodeJoinToken.caHash(ca).equals(caHash)) {
            throw new JoinException("the server handed out a CA other than the one the token names: refusing it");
        }
        return credentials;
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static String statusMessage(byte[] body) {
        try {
            JsonNode status = Json.read(body);
            if (status.path("message").isTextual()) {
                return status.get("message").asText();
            }
        } catch (RuntimeException notJson) {
            // fall through to the raw body
        }
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }

    /** TLS that trusts exactly the CA the token names, found in the chain the server presents. */
    private static SSLContext pinnedContext(String caHash) throws JoinException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new PinnedCaTrustManager(caHash)}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new JoinException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * Accepts a server chain when it contains a certificate with the pinned hash and the chain verifies against that
     * certificate as the only trust anchor (the JDK then also checks the host name).
     */
    private record PinnedCaTrustManager(String caHash) implements X509TrustManager {
        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            X509Certificate anchor = null;
            for (X509Certificate certificate : chain) {
                if (NodeJoinToken.caHash(certificate).equals(caHash)) {
                    anchor = certificate;
                }
            }
            if (anchor == null) {
                throw new CertificateException("the server's certificate chain does not hold the CA the token names");
            }
            try {
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(TlsContexts.trustStore(List.of(anchor)));
                for (TrustManager manager : factory.getTrustManagers()) {
                    if (manager instanceof X509TrustManager x509) {
                        x509.checkServerTrusted(chain, authType);
                        return;
                    }
                }
                throw new CertificateException("no X.509 trust manager in this JDK");
            } catch (GeneralSecurityException e) {
                throw e instanceof CertificateException certificate ? certificate : new CertificateException(e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("the node join client does not accept client connections");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
