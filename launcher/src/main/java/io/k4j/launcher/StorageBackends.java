package io.k4j.launcher;

import io.k4j.storage.KeyValueStore;
import io.k4j.storage.etcd.EtcdKeyValueStore;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/** Chooses the storage backend once, at the edge, from {@code --datastore-endpoint} (as k3s does). */
final class StorageBackends {
    private StorageBackends() {}

    /**
     * @param endpoint empty for the embedded SQLite store in the data directory, {@code etcd://…} or
     *     {@code http://…} for etcd, {@code sqlite:///path/to/file.db} for SQLite elsewhere
     * @param etcdCompactionInterval how often to compact etcd, as upstream's apiserver does; zero for never (SQLite
     *     compacts itself)
     */
    static KeyValueStore open(Optional<String> endpoint, DataDirectory dataDirectory, Duration etcdCompactionInterval) {
        if (endpoint.isEmpty()) {
            SqliteNativeLibrary.useCopyIn(dataDirectory.nativeLibraryDirectory());
            return SqliteKeyValueStore.open(dataDirectory.databaseFile());
        }
        String value = endpoint.get();
        String scheme = value.contains("://") ? value.substring(0, value.indexOf("://")).toLowerCase(Locale.ROOT) : "";
        return switch (scheme) {
            case "etcd", "http", "https" -> {
                EtcdKeyValueStore etcd = EtcdKeyValueStore.connect(value);
                if (!etcdCompactionInterval.isZero()) {
                    etcd.compactPeriodically(etcdCompactionInterval);
                }
                yield etcd;
            }
            case "sqlite" -> {
                SqliteNativeLibrary.useCopyIn(dataDirectory.nativeLibraryDirectory());
                yield SqliteKeyValueStore.open(java.nio.file.Path.of(value.substring("sqlite://".length())));
            }
            default -> throw new IllegalArgumentException(
                    "unsupported --datastore-endpoint " + value + ": use etcd://host:port[,host:port…] or sqlite:///path/file.db");
        };
    }

    /** A description safe to log (no credentials). */
    static String describe(Optional<String> endpoint, DataDirectory dataDirectory) {
        return endpoint.map(value -> value.replaceAll("//[^@/]*@", "//"))
                .orElse("embedded SQLite at " + dataDirectory.databaseFile());
    }
}
