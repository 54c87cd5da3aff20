package io.k4j.apiserver.nodejoin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.Json;
import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.authentication.AuthenticationRequest;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.authentication.x509.X509Authenticator;
import io.k4j.apiserver.nodejoin.testing.NodeJoinServer;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.Pem;
import io.k4j.apiserver.pki.TlsContexts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node join endpoint on a real apiserver whose own authentication knows no tokens and whose authorization allows
 * nothing: the join token alone must get a node its credentials, and nothing else may.
 */
class NodeJoinHandlerTest {
    private static final String REQUEST = """
            {"nodeName": "worker-1", "hostNames": ["worker-1", "localhost"], "addresses": ["10.1.2.3", "127.0.0.1"]}""";

    @TempDir
    static Path directory;

    private static NodeJoinServer joinServer;
    private static ApiServer server;
    private static ClusterPki pki;
    private static NodeJoinToken token;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        joinServer = NodeJoinServer.start(directory);
        pki = joinServer.pki();
        token = joinServer.token();
        server = joinServer.server();
        client = HttpClient.newBuilder().sslContext(TlsContexts.clientContext(List.of(pki.caCertificate()), Optional.empty())).build();
    }

    @AfterAll
    static void stop() throws Exception {
        joinServer.close();
    }

    private static HttpResponse<String> post(String path, String authorization, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theJoinTokenGetsTheNodeItsIdentityAServingCertificateAndTheClusterCa() throws Exception {
        HttpResponse<String> response = post(NodeJoinHandler.PATH, "Bearer " + token.format(), REQUEST);

        assertThat(response.statusCode()).isEqualTo(200);
        NodeCredentials credentials = NodeCredentials.fromJson(response.body().getBytes(StandardCharsets.UTF_8));
        assertThat(credentials.caCertificate()).isEqualTo(pki.caCertificatePem());
        assertThat(credentials.clusterCidr()).isEqualTo("10.42.0.0/16");

        X509Certificate client = Pem.decodeCertificate(credentials.clientCertificate());
        client.verify(pki.caCertificate().getPublicKey());
        Pem.decodePrivateKey(credentials.clientKey());
        UserInfo node = new X509Authenticator(InstantSource.system())
                .authenticate(new AuthenticationRequest(Map.of(), List.of(client))).orElseThrow();
        assertThat(node.name()).isEqualTo("system:node:worker-1");
        assertThat(node.groups()).contains("system:nodes");

        X509Certificate serving = Pem.decodeCertificate(credentials.servingCertificate());
        serving.verify(pki.caCertificate().getPublicKey());
        assertThat(ClusterPki.commonName(serving)).isEqualTo("system:node:worker-1");
        assertThat(serving.getSubjectAlternativeNames()).extracting(name -> name.get(1).toString())
                .contains("worker-1", "localhost", "10.1.2.3", "127.0.0.1");
        assertThat(serving.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");

        X509Certificate kubeProxy = Pem.decodeCertificate(credentials.kubeProxyCertificate());
        assertThat(ClusterPki.commonName(kubeProxy)).isEqualTo(ClusterPki.KUBE_PROXY_USER);
    }

    @Test
    void theBareSecretIsAcceptedToo() throws Exception {
        assertThat(post(NodeJoinHandler.PATH, "bearer " + token.secret(), REQUEST).statusCode()).isEqualTo(200);
    }

    @Test
    void aWrongOrMissingTokenIsAnUnauthorizedStatusAndIssuesNothing() throws Exception {
        for (String authorization : new String[] {null, "Bearer wrong", "Bearer " + token.secret() + "0", "Basic " + token.secret(), "Bearer"}) {
            HttpResponse<String> response = post(NodeJoinHandler.PATH, authorization, REQUEST);

            assertThat(response.statusCode()).as("authorization %s", authorization).isEqualTo(401);
            JsonNode status = Json.read(response.body());
            assertThat(status.path("kind").asText()).isEqualTo("Status");
            assertThat(status.path("reason").asText()).isEqualTo("Unauthorized");
            assertThat(response.body()).doesNotContain("CERTIFICATE");
        }
    }

    @Test
    void anInvalidRequestIsABadRequest() throws Exception {
        HttpResponse<String> badName = post(NodeJoinHandler.PATH, "Bearer " + token.format(), """
                {"nodeName": "Not_A_Node", "addresses": []}""");
        HttpResponse<String> badAddress = post(NodeJoinHandler.PATH, "Bearer " + token.format(), """
                {"nodeName": "worker-2", "addresses": ["example.com"]}""");
        HttpResponse<String> notJson = post(NodeJoinHandler.PATH, "Bearer " + token.format(), "nodeName=worker-2");

        assertThat(badName.statusCode()).isEqualTo(400);
        assertThat(Json.read(badName.body()).path("message").asText()).contains("invalid node name \"Not_A_Node\"");
        assertThat(badAddress.statusCode()).isEqualTo(400);
        assertThat(notJson.statusCode()).isEqualTo(400);
    }

    @Test
    void otherPathsUnderThePrefixAreNotFoundAndOnlyPostIsServed() throws Exception {
        assertThat(post("/v1-k4j/other", "Bearer " + token.format(), REQUEST).statusCode()).isEqualTo(404);
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + NodeJoinHandler.PATH))
                .header("Authorization", "Bearer " + token.format()).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
    }

    @Test
    void theRestOfTheApiStillNeedsItsOwnCredentials() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/api/v1/nodes"))
                .header("Authorization", "Bearer " + token.format()).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(401);
    }
}
