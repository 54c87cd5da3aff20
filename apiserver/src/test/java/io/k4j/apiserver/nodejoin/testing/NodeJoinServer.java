package io.k4j.apiserver.nodejoin.testing;

import io.k4j.apiserver.ApiServer;
import io.k4j.apiserver.ApiServerConfig;
import io.k4j.apiserver.authentication.x509.X509Authenticator;
import io.k4j.apiserver.nodejoin.NodeJoinHandler;
import io.k4j.apiserver.nodejoin.NodeJoinToken;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.PkiOptions;
import io.k4j.apiserver.pki.TlsContexts;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

/**
 * An apiserver on loopback with a fresh PKI, a node join token and the node join endpoint (pod CIDR 10.42.0.0/16)
 * before X.509 authentication, over SQLite in {@code directory}: what node-join tests on both sides of the endpoint
 * run against. {@link #close} stops it and waits for the PKI's background work, so the directory can go.
 */
public record NodeJoinServer(ClusterPki pki, NodeJoinToken token, SqliteKeyValueStore storage, ApiServer server)
        implements AutoCloseable {
    public static NodeJoinServer start(Path directory) throws Exception {
        ClusterPki pki = ClusterPki.loadOrCreate(directory.resolve("pki"),
                PkiOptions.of("k4j-host", "server-node", InetAddress.getByName("10.43.0.1")));
        NodeJoinToken token = NodeJoinToken.loadOrCreate(directory.resolve("token"), pki.caCertificate());
        SqliteKeyValueStore storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
        ApiServer server = new ApiServer(ApiServerConfig.builder(storage,
                        TlsContexts.keyStore(pki.apiServer(), List.of(pki.caCertificate())), TlsContexts.KEY_STORE_PASSWORD)
                .listen("127.0.0.1", 0)
                .clientCaCertificates(List.of(pki.caCertificate()))
                .authenticators(List.of(new X509Authenticator(InstantSource.system())))
                .preAuthenticationHandlers(List.of(new NodeJoinHandler(token, pki, "10.42.0.0/16")))
                .build());
        server.start();
        return new NodeJoinServer(pki, token, storage, server);
    }

    public URI uri() {
        return URI.create("https://127.0.0.1:" + server.port());
    }

    @Override
    public void close() throws Exception {
        server.close();
        storage.close();
        pki.awaitBackgroundWork();
    }
}
