package io.k4j.storage.sqlite;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.k4j.storage.KeyValue;
import io.k4j.storage.Lease;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link SqliteDurabilityTest}: writes keys from several threads until it is killed
 * (or a bound is reached) and prints {@code ack <key> <revision>} for every write the store acknowledged.
 */
public final class DurabilityWriter {
    static final int THREADS = 8;
    static final int MAX_WRITES_PER_THREAD = 20_000;

    private DurabilityWriter() {}

    public static void main(String[] args) throws InterruptedException {
        Path databaseFile = Path.of(args[0]);
        PrintStream out = new PrintStream(System.out, true, UTF_8);
        SqliteKeyValueStore store = SqliteKeyValueStore.open(databaseFile, SqliteOptions.defaults().withoutAutomaticCompaction());
        out.println("ready");
        List<Thread> threads = new ArrayList<>();
        for (int thread = 0; thread < THREADS; thread++) {
            int index = thread;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < MAX_WRITES_PER_THREAD; i++) {
                    String key = "/registry/durability/" + index + "/" + i;
                    KeyValue stored = store.create(key, ("value-" + i).getBytes(UTF_8), Lease.NONE);
                    out.println("ack " + key + " " + stored.modRevision());
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        store.close();
    }
}
