package io.k4j.e2e;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The kubectl acceptance suite on the embedded SQLite store. */
class KubectlSqliteIT extends KubectlAcceptance {
    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;

    @BeforeAll
    static void startServer() {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
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
