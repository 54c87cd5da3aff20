package io.k4j.e2e;

import io.k4j.storage.etcd.EtcdProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The kubectl acceptance suite with {@code --datastore-endpoint} on a real etcd. */
class KubectlEtcdIT extends KubectlAcceptance {
    @TempDir
    static Path temporaryDirectory;

    private static EtcdProcess etcd;
    private static K4jServer server;

    @BeforeAll
    static void startServer() {
        etcd = EtcdProcess.start();
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--datastore-endpoint=" + etcd.endpoint());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    K4jServer server() {
        return server;
    }

    @Override
    Path workDirectory() {
        return temporaryDirectory;
    }
}
