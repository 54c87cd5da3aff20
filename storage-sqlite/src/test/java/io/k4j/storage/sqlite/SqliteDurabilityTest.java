package io.k4j.storage.sqlite;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.storage.KeyValue;
import io.k4j.storage.RangeRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing process with SIGKILL and checks that every write it had acknowledged is in the database
 * afterwards: a write is acknowledged only once it is durable.
 */
class SqliteDurabilityTest {
    private static final int ACKS_BEFORE_KILL = 400;

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        Path databaseFile = directory.resolve("k4j.db");
        Process child = startWriter(databaseFile);
        Map<String, Long> acknowledged = new LinkedHashMap<>();
        try {
            BlockingQueue<String> lines = readLines(child);
            while (acknowledged.size() < ACKS_BEFORE_KILL) {
                String line = lines.poll(60, TimeUnit.SECONDS);
                assertThat(line).as("output of the writer process").isNotNull().isNotEqualTo("<eof>");
                if (line.startsWith("ack ")) {
                    String[] parts = line.split(" ");
                    acknowledged.put(parts[1], Long.parseLong(parts[2]));
                }
            }
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }

        try (SqliteKeyValueStore store = SqliteKeyValueStore.open(databaseFile)) {
            for (Map.Entry<String, Long> ack : acknowledged.entrySet()) {
                KeyValue stored = store.get(ack.getKey());
                assertThat(stored).as("acknowledged key %s", ack.getKey()).isNotNull();
                assertThat(stored.modRevision()).isEqualTo(ack.getValue());
            }
            long highestAck = acknowledged.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(store.currentRevision()).isGreaterThanOrEqualTo(highestAck);
            // Revisions stay gap-free across the crash: every revision up to the current one holds a key.
            assertThat(store.count("/registry/durability/")).isEqualTo(store.currentRevision());
            assertThat(store.range(RangeRequest.prefix("/registry/durability/")).count()).isEqualTo(store.currentRevision());
        }
    }

    private static Process startWriter(Path databaseFile) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder builder = new ProcessBuilder(java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                DurabilityWriter.class.getName(),
                databaseFile.toString());
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        return builder.start();
    }

    /** Reads the child's output on a daemon thread, so the test can wait with a timeout. */
    private static BlockingQueue<String> readLines(Process child) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("durability-writer-output").start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // The child was killed; whatever it printed before is in the queue.
            }
            lines.add("<eof>");
        });
        return lines;
    }
}
