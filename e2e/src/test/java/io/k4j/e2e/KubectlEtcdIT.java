package io.k4j.e2e;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The kubectl acceptance suite with {@code --datastore-endpoint} on a real etcd. */
class KubectlEtcdIT extends KubectlAcceptance {
    @TempDir
    static Path temporaryDirectory;

    private static EtcdBackedServer cluster;

    @BeforeAll
    static void startServer() {
        cluster = EtcdBackedServer.start(temporaryDirectory.resolve("data"));
    }

    @AfterAll
    static void stopServer() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    K4jServer server() {
        return cluster.server();
    }

    @Override
    Path workDirectory() {
        return temporaryDirectory;
    }
}
