package io.k4j.e2e;

import static java.util.Objects.requireNonNull;

import io.k4j.storage.etcd.EtcdProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A k4j server ({@link K4jServer#start}) on a real etcd of its own, started and stopped together. */
final class EtcdBackedServer implements AutoCloseable {
    private final EtcdProcess etcd;
    private final K4jServer server;

    private EtcdBackedServer(EtcdProcess etcd, K4jServer server) {
        this.etcd = requireNonNull(etcd, "etcd is null");
        this.server = requireNonNull(server, "server is null");
    }

    /** Starts an etcd, then a server with {@code --datastore-endpoint} on it and {@code extraArguments}. */
    static EtcdBackedServer start(Path dataDirectory, String... extraArguments) {
        EtcdProcess etcd = EtcdProcess.start();
        try {
            List<String> arguments = new ArrayList<>(List.of("--datastore-endpoint=" + etcd.endpoint()));
            arguments.addAll(List.of(extraArguments));
            return new EtcdBackedServer(etcd, K4jServer.start(dataDirectory, arguments.toArray(String[]::new)));
        } catch (RuntimeException | Error e) {
            etcd.close();
            throw e;
        }
    }

    EtcdProcess etcd() {
        return etcd;
    }

    K4jServer server() {
        return server;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            etcd.close();
        }
    }
}
