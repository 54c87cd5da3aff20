package io.k4j.kubelet.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerLogReaderTest {
    private static final String LOG = """
            2026-11-22T10:00:00.000000001Z stdout F first
            2026-11-22T10:00:01.000000000Z stderr F an error
            2026-11-22T10:00:02.000000000Z stdout P joined\s
            2026-11-22T10:00:03.000000000Z stderr F interleaved
            2026-11-22T10:00:04.000000000Z stdout P from\s
            2026-11-22T10:00:05.000000000Z stdout F parts
            not a CRI line
            2026-11-22T10:00:06.000000000Z stdout F last
            """;

    @TempDir
    Path directory;

    private final ContainerLogReader reader = new ContainerLogReader(Duration.ofMillis(50));

    @Test
    void joinsPartialLinesAndSkipsForeignLines() throws IOException {
        assertThat(read(LogOptions.ALL)).isEqualTo("first\nan error\ninterleaved\njoined from parts\nlast\n");
    }

    @Test
    void timestampsAreThoseOfTheFirstPart() throws IOException {
        assertThat(read(new LogOptions(false, true, OptionalLong.empty(), Optional.empty(), OptionalLong.empty())))
                .contains("2026-11-22T10:00:00.000000001Z first\n")
                .contains("2026-11-22T10:00:02.000000000Z joined from parts\n");
    }

    @Test
    void tailKeepsTheLastLines() throws IOException {
        assertThat(read(new LogOptions(false, false, OptionalLong.of(2), Optional.empty(), OptionalLong.empty()))).isEqualTo("joined from parts\nlast\n");
        assertThat(read(new LogOptions(false, false, OptionalLong.of(0), Optional.empty(), OptionalLong.empty()))).isEmpty();
        assertThat(read(new LogOptions(false, false, OptionalLong.of(100), Optional.empty(), OptionalLong.empty()))).startsWith("first\n");
    }

    @Test
    void sinceDropsEarlierLines() throws IOException {
        LogOptions options = new LogOptions(false, false, OptionalLong.empty(), Optional.of(Instant.parse("2026-11-22T10:00:03Z")), OptionalLong.empty());
        assertThat(read(options)).isEqualTo("interleaved\nlast\n");
    }

    @Test
    void limitCutsTheOutput() throws IOException {
        assertThat(read(new LogOptions(false, false, OptionalLong.empty(), Optional.empty(), OptionalLong.of(8)))).isEqualTo("first\nan");
    }

    @Test
    void followStreamsAppendedLinesUntilTheContainerStops() throws Exception {
        Path file = directory.resolve("0.log");
        Files.writeString(file, "2026-11-22T10:00:00Z stdout F one\n");
        AtomicBoolean running = new AtomicBoolean(true);
        SynchronizedOutput output = new SynchronizedOutput();
        LogOptions follow = new LogOptions(true, false, OptionalLong.empty(), Optional.empty(), OptionalLong.empty());
        CompletableFuture<Void> following = CompletableFuture.runAsync(() -> {
            try {
                reader.read(file, follow, output, running::get);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> output.text().equals("one\n"));
        Files.writeString(file, "2026-11-22T10:00:01Z stdout P t\n2026-11-22T10:00:01Z stdout F wo\n", StandardOpenOption.APPEND);
        await().atMost(Duration.ofSeconds(10)).until(() -> output.text().equals("one\ntwo\n"));
        assertThat(following).isNotDone();
        Files.writeString(file, "2026-11-22T10:00:02Z stdout F three\n", StandardOpenOption.APPEND);
        running.set(false);
        following.get(10, TimeUnit.SECONDS);
        assertThat(output.text()).isEqualTo("one\ntwo\nthree\n");
    }

    private String read(LogOptions options) throws IOException {
        Path file = directory.resolve("log");
        Files.writeString(file, LOG);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        reader.read(file, options, output, () -> false);
        return output.toString(StandardCharsets.UTF_8);
    }

    private static final class SynchronizedOutput extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int value) {
            bytes.write(value);
        }

        @Override
        public synchronized void write(byte[] buffer, int offset, int length) {
            bytes.write(buffer, offset, length);
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
