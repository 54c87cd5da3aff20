package io.k4j.storage.sqlite;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Properties;

/**
 * The schema and the SQL shared by the writer and the readers.
 *
 * <p>Like kine, every write appends one row to {@code kine}, whose {@code id} is the etcd revision. A row
 * points at the row it replaces ({@code prev_revision}); the unique index on {@code (name, prev_revision)}
 * makes it impossible to append two successors to one row, so even a bug in the in-memory checks cannot
 * fork a key's history. Unlike kine, a row also carries the key's {@code version} (etcd's per-key write
 * counter, which cannot be recomputed once history is compacted), and a previous value is read through
 * {@code prev_revision} instead of being copied into every row: compaction keeps every row that a retained
 * event refers to (see {@link #DELETE_SUPERSEDED}).
 *
 * <p>A delete row ({@code deleted = 1}) records the state just before the delete: its value, version,
 * lease and create revision are those of the deleted key, so a delete event needs no second lookup.
 * Names are stored as UTF-8 BLOBs so that SQLite orders them byte-wise, as etcd does.
 *
 * <p>Not instantiable; thread-safety is that of the connections passed in.
 */
final class LogTable {
    static final String META_COMPACT_REVISION = "compact_revision";

    private static final String[] SCHEMA = {
        """
        CREATE TABLE IF NOT EXISTS kine (
            id INTEGER PRIMARY KEY,
            name BLOB NOT NULL,
            created INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            create_revision INTEGER NOT NULL,
            prev_revision INTEGER NOT NULL,
            version INTEGER NOT NULL,
            lease INTEGER NOT NULL,
            value BLOB NOT NULL
        )""",
        "CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision)",
        "CREATE TABLE IF NOT EXISTS lease (id INTEGER PRIMARY KEY, ttl_millis INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    };

    static final String INSERT_ROW = """
            INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, version, lease, value)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""";

    static final String SELECT_VALUE = "SELECT value FROM kine WHERE id = ?";

    /**
     * A key's rows form a chain in which each row points at the one before it, so ordering them by
     * {@code prev_revision} orders them by revision too, and the unique index serves every lookup by name.
     */
    static final String SELECT_LATEST = """
            SELECT id, deleted, create_revision, version, lease, value FROM kine
            WHERE name = ? AND id <= ? ORDER BY prev_revision DESC LIMIT 1""";

    /** The latest row of every key (live or deleted): the in-memory index is rebuilt from it. */
    static final String SELECT_ALL_LATEST = """
            SELECT k.id, k.name, k.deleted, k.create_revision, k.version, k.lease
            FROM kine k JOIN (SELECT MAX(id) AS id FROM kine GROUP BY name) latest ON k.id = latest.id""";

    static final String SELECT_MAX_REVISION = "SELECT COALESCE(MAX(id), 0) FROM kine";
    static final String SELECT_LEASES = "SELECT id, ttl_millis FROM lease";
    static final String INSERT_LEASE = "INSERT INTO lease (id, ttl_millis) VALUES (?, ?)";
    static final String DELETE_LEASE = "DELETE FROM lease WHERE id = ?";
    static final String SELECT_META = "SELECT value FROM meta WHERE name = ?";
    static final String UPSERT_META = "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value";

    /** Rows superseded by a row at or below the bound; parameters: lower bound (exclusive), upper bound (inclusive). */
    static final String DELETE_SUPERSEDED = """
            DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine WHERE id > ? AND id <= ? AND prev_revision > 0)""";

    /** Delete rows below the bound: the key is absent there and nothing older remains. */
    static final String DELETE_TOMBSTONES = "DELETE FROM kine WHERE deleted = 1 AND id >= ? AND id < ?";

    private LogTable() {}

    /** What a connection is for; each role needs other settings. */
    enum Role {
        /** The one connection that writes; see {@link GroupCommitWriter} for why it does not fsync itself. */
        WRITER,
        /** Copies the WAL into the database file in the background. */
        CHECKPOINTER,
        READER,
    }

    /**
     * Pages of a new database. A commit writes each page it changed to the WAL as one frame, and a pod's row (about
     * 2 KiB) fills half of a 4 KiB page: with 8 KiB pages a batch of creates writes fewer frames. Measured with
     * 64 writers of pod-sized values under random names, against 4 KiB pages: 28k against 21k creates/s and a quarter
     * less CPU per create; 16 KiB pages gave less than 8 KiB ones.
     */
    static final int PAGE_SIZE_BYTES = 8192;

    /** Safety net only: the checkpointer normally keeps the WAL far below this many pages. */
    private static final int WRITER_AUTOCHECKPOINT_PAGES = 65536;

    static Connection open(Path databaseFile, Role role) throws SQLException {
        Properties properties = new Properties();
        // Otherwise the driver runs "SELECT last_insert_rowid()" after every insert: we choose the ids.
        properties.setProperty("jdbc.get_generated_keys", "false");
        Connection connection = DriverManager.getConnection("jdbc:sqlite:" + databaseFile.toAbsolutePath(), properties);
        try (Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA busy_timeout = 10000");
            statement.execute("PRAGMA cache_size = -32768");
            statement.execute("PRAGMA temp_store = MEMORY");
            switch (role) {
                case WRITER -> {
                    // Only a new database takes it; one made with another page size keeps that.
                    statement.execute("PRAGMA page_size = " + PAGE_SIZE_BYTES);
                    statement.execute("PRAGMA journal_mode = WAL");
                    // NORMAL: commits only write the WAL; the writer fsyncs the WAL itself before it
                    // acknowledges (group commit), and checkpoints still sync the WAL and the database file.
                    statement.execute("PRAGMA synchronous = NORMAL");
                    statement.execute("PRAGMA wal_autocheckpoint = " + WRITER_AUTOCHECKPOINT_PAGES);
                    for (String ddl : SCHEMA) {
                        statement.execute(ddl);
                    }
                }
                case CHECKPOINTER -> statement.execute("PRAGMA synchronous = FULL");
                case READER -> statement.execute("PRAGMA query_only = 1");
            }
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    static long readMeta(Connection connection, String name) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SELECT_META)) {
            statement.setString(1, name);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }

    static byte[] nameBytes(String key) {
        return key.getBytes(UTF_8);
    }

    static String name(byte[] bytes) {
        return new String(bytes, UTF_8);
    }

    /**
     * The smallest name greater than every name starting with {@code prefix}, or {@code null} when no such
     * name exists (an empty prefix or one made only of 0xFF bytes).
     */
    static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }
}
