package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.apiserver.nodejoin.NodeCredentials;
import io.k4j.apiserver.nodejoin.NodeCredentialsRequest;
import io.k4j.apiserver.nodejoin.NodeJoinToken;
import io.k4j.apiserver.nodejoin.testing.NodeJoinServer;
import io.k4j.apiserver.pki.ClusterPki;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's join against a real apiserver serving the node join: the server is verified by the token's CA hash. */
class NodeJoinClientTest {
    private static final NodeCredentialsRequest REQUEST = new NodeCredentialsRequest("worker-1", List.of("worker-1", "localhost"), List.of("127.0.0.1"));
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    static Path directory;

    private static NodeJoinServer joinServer;
    private static ClusterPki pki;
    private static NodeJoinToken token;
    private static URI serverUri;

    @BeforeAll
    static void start() throws Exception {
        joinServer = NodeJoinServer.start(directory);
        pki = joinServer.pki();
        token = joinServer.token();
        serverUri = joinServer.uri();
    }

    @AfterAll
    static void stop() throws Exception {
        joinServer.close();
    }

    @Test
    void theRightTokenGetsTheNodesCredentials() throws Exception {
        NodeCredentials credentials = NodeJoinClient.join(serverUri, token, REQUEST, TIMEOUT);

        assertThat(credentials.caCertificate()).isEqualTo(pki.caCertificatePem());
        assertThat(credentials.clusterCidr()).isEqualTo("10.42.0.0/16");
        JoinedNodeIdentity identity = new JoinedNodeIdentity(serverUri.toString(), credentials);
        assertThat(ClusterPki.commonName(identity.kubeletServingCertificate().certificate())).isEqualTo("system:node:worker-1");
        assertThat(identity.caCertificate()).isEqualTo(pki.caCertificate());
    }

    @Test
    void aWrongSecretIsRefusedWithWhatToDo() {
        NodeJoinToken wrong = new NodeJoinToken(token.caHash(), "not-the-secret");

        assertThatThrownBy(() -> NodeJoinClient.join(serverUri, wrong, REQUEST, TIMEOUT))
                .isInstanceOf(NodeJoinClient.JoinException.class)
                .hasMessageContaining("refused the join token (401 Unauthorized)")
                .hasMessageContaining("--token");
    }

    @Test
    void aServerWithAnotherCaNeverSeesTheToken() {
        NodeJoinToken otherCluster = new NodeJoinToken(Optional.of("ab".repeat(32)), token.secret());

        assertThatThrownBy(() -> NodeJoinClient.join(serverUri, otherCluster, REQUEST, TIMEOUT))
                .isInstanceOf(NodeJoinClient.JoinException.class)
                .hasMessageContaining("cannot verify the k4j server");
    }

    @Test
    void aTokenWithoutCaHashIsNotSentAnywhere() {
        NodeJoinToken bare = NodeJoinToken.parse(token.secret());

        assertThatThrownBy(() -> NodeJoinClient.join(serverUri, bare, REQUEST, TIMEOUT))
                .isInstanceOf(NodeJoinClient.JoinException.class)
                .hasMessageContaining("no CA hash");
    }

    @Test
    void anUnreachableServerSaysSo() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> NodeJoinClient.join(URI.create("https://127.0.0.1:" + closedPort), token, REQUEST, TIMEOUT))
                .isInstanceOf(NodeJoinClient.JoinException.class)
                .hasMessageContaining("cannot reach the k4j server at https://127.0.0.1:" + closedPort);
    }

    @Test
    void onlyAnHttpsUrlIsAccepted() {
        assertThatThrownBy(() -> NodeJoinClient.join(URI.create("http://127.0.0.1:6443"), token, REQUEST, TIMEOUT))
                .isInstanceOf(NodeJoinClient.JoinException.class)
                .hasMessageContaining("https URL");
    }
}
