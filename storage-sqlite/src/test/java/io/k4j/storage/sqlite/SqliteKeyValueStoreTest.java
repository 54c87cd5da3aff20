package io.k4j.storage.sqlite;

import io.k4j.storage.KeyValueStore;
import io.k4j.storage.testing.KeyValueStoreConformance;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteKeyValueStoreTest extends KeyValueStoreConformance {
    @TempDir
    Path directory;

    @Override
    protected KeyValueStore newStore() {
        return SqliteKeyValueStore.open(directory.resolve("k4j.db"), SqliteOptions.defaults().withoutAutomaticCompaction());
    }
}
