package io.k4j.storage.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.k4j.storage.KeyValue;
import io.k4j.storage.KeyValueStore;
import io.k4j.storage.Lease;
import io.k4j.storage.RangeRequest;
import io.k4j.storage.StorageException;
import io.k4j.storage.Watch;
import io.k4j.storage.WatchEvent;
import io.k4j.storage.WatchListener;
import io.k4j.storage.testing.KeyValueStoreConformance;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteKeyValueStoreTest extends KeyValueStoreConformance {
    @TempDir
    Path directory;

    @Override
    protected KeyValueStore newStore() {
        return SqliteKeyValueStore.open(databaseFile(), SqliteOptions.defaults().withoutAutomaticCompaction());
    }

    private Path databaseFile() {
        return directory.resolve("k4j.db");
    }

    private SqliteKeyValueStore sqliteStore() {
        return (SqliteKeyValueStore) store;
    }

    @Test
    void reopeningTheFileKeepsDataRevisionCompactionAndLeases() {
        KeyValue a = store.create("/registry/pods/default/a", bytes("a1"), Lease.NONE);
        KeyValue a2 = store.update("/registry/pods/default/a", bytes("a2"), a.modRevision(), Lease.NONE);
        store.create("/registry/pods/default/b", bytes("b1"), Lease.NONE);
        store.delete("/registry/pods/default/b", 0);
        long lease = store.grantLease(Duration.ofMinutes(5));
        KeyValue leased = store.create("/registry/events/default/e", bytes("e"), lease);
        store.compact(a2.modRevision());
        long revision = store.currentRevision();
        store.close();

        store = SqliteKeyValueStore.open(databaseFile(), SqliteOptions.defaults().withoutAutomaticCompaction());

        assertThat(store.currentRevision()).isEqualTo(revision);
        assertThat(store.compactedRevision()).isEqualTo(a2.modRevision());
        assertSameState(a2, store.get("/registry/pods/default/a"));
        assertSameState(leased, store.get("/registry/events/default/e"));
        assertThat(store.get("/registry/pods/default/b")).isNull();
        assertThatThrownBy(() -> store.update("/registry/pods/default/a", bytes("x"), a.modRevision(), Lease.NONE))
                .isInstanceOf(StorageException.Conflict.class);
        KeyValue recreated = store.create("/registry/pods/default/b", bytes("b2"), Lease.NONE);
        assertThat(recreated.modRevision()).isEqualTo(revision + 1);
        assertThat(recreated.version()).isEqualTo(1);
        store.keepAlive(lease);
        store.revokeLease(lease);
        assertThat(store.get("/registry/events/default/e")).isNull();
    }

    @Test
    void leasesStillExpireAfterAReopen() {
        long lease = store.grantLease(Duration.ofSeconds(2));
        store.create("/registry/events/default/e", bytes("e"), lease);
        store.close();

        store = SqliteKeyValueStore.open(databaseFile(), SqliteOptions.defaults().withoutAutomaticCompaction());

        // As in etcd, a reopened store gives every lease its full TTL again rather than expiring it at once.
        assertThat(store.get("/registry/events/default/e")).isNotNull();
        waitAtMost(Duration.ofSeconds(10)).until(() -> store.get("/registry/events/default/e") == null);
        assertThatThrownBy(() -> store.keepAlive(lease)).isInstanceOf(StorageException.LeaseNotFound.class);
    }

    @Test
    void aSecondStoreCannotOpenTheSameFile() {
        assertThatThrownBy(() -> SqliteKeyValueStore.open(databaseFile()))
                .isInstanceOf(StorageException.Unavailable.class)
                .hasMessageContaining("already open");
        store.close();

        store = SqliteKeyValueStore.open(databaseFile());
        assertThat(store.currentRevision()).isZero();
    }

    @Test
    void openCreatesMissingDirectories() {
        try (SqliteKeyValueStore nested = SqliteKeyValueStore.open(directory.resolve("data/storage/k4j.db"))) {
            nested.create("/registry/pods/default/a", bytes("x"), Lease.NONE);
            assertThat(nested.currentRevision()).isEqualTo(1);
        }
    }

    @Test
    void concurrentWritesShareTransactionsAndFsyncs() throws Exception {
        long transactionsBefore = sqliteStore().committedTransactions();
        long syncsBefore = sqliteStore().walSyncs();
        int threads = 32;
        int writesPerThread = 25;

        runConcurrently(threads, thread -> {
            for (int i = 0; i < writesPerThread; i++) {
                store.create("/registry/pods/ns" + thread + "/p" + i, bytes("x"), Lease.NONE);
            }
            return null;
        });

        int writes = threads * writesPerThread;
        long transactions = sqliteStore().committedTransactions() - transactionsBefore;
        long syncs = sqliteStore().walSyncs() - syncsBefore;
        assertThat(syncs).isLessThan(writes);
        // Writes that arrive during a sync are committed together once it ends: about one transaction per sync (a
        // commit that races with the end of a sync can add one).
        assertThat(transactions).isLessThanOrEqualTo(2 * syncs + 1);
        assertThat(store.count("/registry/pods/")).isEqualTo(writes);
    }

    @Test
    void failingWritesInABatchDoNotAffectTheOthers() throws Exception {
        long transactionsBefore = sqliteStore().committedTransactions();
        int threads = 16;
        int rounds = 20;

        // Every round, all threads race to create one shared key and one key of their own: one shared
        // create wins, the others fail with KeyExists in the same transactions as the successful creates.
        List<List<String>> outcomes = runConcurrently(threads, thread -> {
            List<String> results = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                try {
                    store.create("/registry/shared/" + round, bytes("t" + thread), Lease.NONE);
                    results.add("won");
                } catch (StorageException.KeyExists expected) {
                    results.add("lost");
                }
                store.create("/registry/own/" + thread + "/" + round, bytes("x"), Lease.NONE);
            }
            return results;
        });

        long won = outcomes.stream().flatMap(List::stream).filter("won"::equals).count();
        assertThat(won).isEqualTo(rounds);
        assertThat(store.count("/registry/shared/")).isEqualTo(rounds);
        assertThat(store.count("/registry/own/")).isEqualTo((long) threads * rounds);
        assertThat(sqliteStore().committedTransactions() - transactionsBefore).isLessThan((long) threads * rounds * 2);
        long expectedRevision = store.range(RangeRequest.prefix("/registry/")).items().stream()
                .mapToLong(KeyValue::modRevision).max().orElseThrow();
        assertThat(store.currentRevision()).isEqualTo(expectedRevision);
    }

    @Test
    void compactionRemovesSupersededRowsFromTheTable() throws SQLException {
        KeyValue current = store.create("/registry/pods/default/a", bytes("0"), Lease.NONE);
        for (int i = 1; i <= 20; i++) {
            current = store.update("/registry/pods/default/a", bytes(Integer.toString(i)), current.modRevision(), Lease.NONE);
        }
        for (int i = 0; i < 10; i++) {
            store.create("/registry/pods/default/gone-" + i, bytes("x"), Lease.NONE);
            store.delete("/registry/pods/default/gone-" + i, 0);
        }
        KeyValue last = store.create("/registry/pods/default/last", bytes("x"), Lease.NONE);
        assertThat(rowCount()).isEqualTo(42);

        store.compact(last.modRevision());

        // Kept: the rows visible just below the compacted revision (a's latest, the last delete) and the
        // row at it, so that a watch from the compacted revision still finds previous values.
        assertThat(rowCount()).isEqualTo(3);
        assertSameState(current, store.get("/registry/pods/default/a"));
        KeyValue next = store.update("/registry/pods/default/a", bytes("21"), current.modRevision(), Lease.NONE);
        assertThat(next.version()).isEqualTo(22);
    }

    @Test
    void automaticCompactionKeepsTheConfiguredHistory() {
        store.close();
        store = SqliteKeyValueStore.open(databaseFile(), SqliteOptions.defaults()
                .withAutomaticCompaction(Duration.ofMillis(50), Duration.ZERO, 5));
        for (int i = 0; i < 20; i++) {
            store.create("/registry/pods/default/p" + i, bytes("x"), Lease.NONE);
        }
        long current = store.currentRevision();

        waitAtMost(Duration.ofSeconds(10)).until(() -> store.compactedRevision() == current - 5);
        assertThat(store.range(RangeRequest.prefix("/registry/pods/").atRevision(current - 5)).items()).hasSize(15);
        assertThatThrownBy(() -> store.range(RangeRequest.prefix("/registry/pods/").atRevision(current - 6)))
                .isInstanceOf(StorageException.Compacted.class);
    }

    @Test
    void aWatchThatFallsBehindCatchesUpFromTheTableWithoutGaps() throws InterruptedException {
        store.close();
        store = SqliteKeyValueStore.open(databaseFile(), SqliteOptions.defaults().withoutAutomaticCompaction().withWatchQueueLimit(5));
        long start = store.currentRevision();
        CountDownLatch release = new CountDownLatch(1);
        List<WatchEvent> received = new CopyOnWriteArrayList<>();
        WatchListener slow = new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                received.addAll(events);
            }

            @Override
            public void onError(StorageException error) {
                throw new AssertionError("unexpected watch error", error);
            }
        };

        try (Watch ignored = store.watch("/registry/pods/", 0, slow)) {
            for (int i = 0; i < 60; i++) {
                store.create("/registry/pods/default/p" + i, bytes("x"), Lease.NONE);
            }
            release.countDown();
            waitAtMost(Duration.ofSeconds(10)).until(() -> received.size() >= 60);
            store.create("/registry/pods/default/after", bytes("x"), Lease.NONE);
            waitAtMost(Duration.ofSeconds(10)).until(() -> received.size() >= 61);
        }

        assertThat(received).extracting(WatchEvent::revision)
                .containsExactlyElementsOf(LongStream.rangeClosed(start + 1, start + 61).boxed().toList());
    }

    @Test
    void aReplayLongerThanOneHistoryPageArrivesComplete() throws Exception {
        long start = store.currentRevision();
        // More matching events than one history page (1000), interleaved with events the watch must skip.
        runConcurrently(16, thread -> {
            for (int i = 0; i < 70; i++) {
                store.create("/registry/pods/ns" + thread + "/p" + i, bytes("x"), Lease.NONE);
                if (i % 4 == 0) {
                    store.create("/registry/other/ns" + thread + "/p" + i, bytes("x"), Lease.NONE);
                }
            }
            return null;
        });
        List<WatchEvent> received = new CopyOnWriteArrayList<>();
        WatchListener listener = new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {
                received.addAll(events);
            }

            @Override
            public void onError(StorageException error) {
                throw new AssertionError("unexpected watch error", error);
            }
        };

        try (Watch ignored = store.watch("/registry/pods/", start + 1, listener)) {
            waitAtMost(Duration.ofSeconds(10)).until(() -> received.size() >= 16 * 70);
        }

        assertThat(received).hasSize(16 * 70);
        assertThat(received).extracting(WatchEvent::key).allMatch(key -> key.startsWith("/registry/pods/"));
        assertThat(received).extracting(WatchEvent::revision).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void closingTheStoreEndsItsWatchesWithAnError() {
        List<StorageException> errors = new CopyOnWriteArrayList<>();
        store.watch("/registry/pods/", 0, new WatchListener() {
            @Override
            public void onEvents(List<WatchEvent> events) {}

            @Override
            public void onError(StorageException error) {
                errors.add(error);
            }
        });

        store.close();

        assertThat(errors).singleElement().isInstanceOf(StorageException.Unavailable.class);
        assertThatThrownBy(() -> store.create("/registry/pods/default/a", bytes("x"), Lease.NONE))
                .isInstanceOf(StorageException.Unavailable.class);
    }

    @Test
    void aNewDatabaseHasLargerPagesAndOneMadeWithTheOldSizeKeepsItsOwn() throws SQLException {
        assertThat(pageSize(databaseFile())).isEqualTo(LogTable.PAGE_SIZE_BYTES).isEqualTo(8192);

        // A database made before the page size changed: SQLite's default pages, in WAL mode.
        Path older = directory.resolve("older.db");
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + older);
                Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA page_size = 4096");
            statement.execute("PRAGMA journal_mode = WAL");
            statement.execute("CREATE TABLE earlier (id INTEGER PRIMARY KEY)");
        }
        try (KeyValueStore reopened = SqliteKeyValueStore.open(older, SqliteOptions.defaults().withoutAutomaticCompaction())) {
            KeyValue created = reopened.create("/registry/pods/default/a", bytes("a"), Lease.NONE);
            assertSameState(created, reopened.get("/registry/pods/default/a"));
        }
        assertThat(pageSize(older)).isEqualTo(4096);
    }

    private static long pageSize(Path file) throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("PRAGMA page_size")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private long rowCount() throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + databaseFile());
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM kine")) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
