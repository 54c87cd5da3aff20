package io.k4j.storage.etcd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.k4j.storage.KeyValue;
import io.k4j.storage.RangeRequest;

/**
 * A writer process killed with SIGKILL loses nothing it was told is stored: every key that {@link DurabilityWriter}
 * printed as acknowledged is in etcd afterwards.
 */
class EtcdDurabilityTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String PREFIX = "/registry/durability/";

    private EtcdProcess etcd;

    @TempDir
    Path temporary;

    @BeforeEach
    void startEtcd() {
        etcd = EtcdProcess.start();
    }

    @AfterEach
    void stopEtcd() {
        etcd.close();
    }

    @Test
    void everyKeyAcknowledgedToAKilledWriterIsStored() throws Exception {
        Path errors = temporary.resolve("writer-stderr.txt");
        Process writer = new ProcessBuilder(javaExecutable(), "-cp", System.getProperty("java.class.path"),
                DurabilityWriter.class.getName(), etcd.endpoint(), PREFIX)
                .redirectError(errors.toFile())
                .start();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Thread reader = Thread.ofPlatform().start(() -> collectAcknowledgements(writer, acknowledged));
        try {
            await().atMost(TIMEOUT).until(() -> {
                if (!writer.isAlive()) {
                    throw new IllegalStateException("the writer exited with " + writer.exitValue() + ":\n"
                            + Files.readString(errors));
                }
                return acknowledged.size() >= 200;
            });
            writer.destroyForcibly();
            assertThat(writer.waitFor(30, TimeUnit.SECONDS)).as("writer exited").isTrue();
            // Acknowledgements still in the pipe were printed before the kill, so they count too.
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        finally {
            writer.destroyForcibly();
        }

        try (EtcdKeyValueStore store = EtcdKeyValueStore.connect(etcd.endpoint())) {
            List<KeyValue> items = store.range(RangeRequest.prefix(PREFIX)).items();
            Set<String> stored = items.stream().map(KeyValue::key).collect(Collectors.toSet());
            assertThat(acknowledged.stream().filter(key -> !stored.contains(key)).toList())
                    .as("acknowledged keys missing from etcd (of %d acknowledged)", acknowledged.size())
                    .isEmpty();
            // A write may have been applied without its acknowledgement being printed, never the other way round.
            assertThat(stored.size()).isGreaterThanOrEqualTo(acknowledged.size());
        }
    }

    private static void collectAcknowledgements(Process writer, Set<String> acknowledged) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(writer.getInputStream(), UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith(DurabilityWriter.ACK)) {
                    acknowledged.add(line.substring(DurabilityWriter.ACK.length()));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
