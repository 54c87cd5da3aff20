package io.k4j.kubelet.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.k4j.controllerkit.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicWriterTest {
    @TempDir
    Path directory;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-04T05:06:07Z"));

    private static FileProjection file(String content, int mode) {
        return new FileProjection(content.getBytes(StandardCharsets.UTF_8), mode);
    }

    private List<String> entries() throws Exception {
        try (Stream<Path> list = Files.list(directory)) {
            return list.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void writesFilesBehindTheDataSymlink() throws Exception {
        AtomicWriter writer = new AtomicWriter(directory, clock);

        boolean changed = writer.write(Map.of("a", file("one", 0644), "nested/b", file("two", 0400)), OptionalInt.empty());

        assertThat(changed).isTrue();
        assertThat(Files.readString(directory.resolve("a"))).isEqualTo("one");
        assertThat(Files.readString(directory.resolve("nested/b"))).isEqualTo("two");
        assertThat(Files.readSymbolicLink(directory.resolve("a"))).isEqualTo(Path.of("..data/a"));
        assertThat(Files.readSymbolicLink(directory.resolve("nested"))).isEqualTo(Path.of("..data/nested"));
        Path data = Files.readSymbolicLink(directory.resolve("..data"));
        assertThat(data.toString()).startsWith("..2026_03_04_05_06_07.");
        assertThat(VolumeFiles.mode(directory.resolve("..data/a"))).isEqualTo(0644);
        assertThat(VolumeFiles.mode(directory.resolve("..data/nested/b"))).isEqualTo(0400);
        assertThat(entries()).containsExactlyInAnyOrder("..data", data.toString(), "a", "nested");
    }

    @Test
    void writingTheSameContentChangesNothing() throws Exception {
        AtomicWriter writer = new AtomicWriter(directory, clock);
        writer.write(Map.of("a", file("one", 0644)), OptionalInt.empty());
        Path before = Files.readSymbolicLink(directory.resolve("..data"));
        clock.advance(Duration.ofSeconds(5));

        boolean changed = writer.write(Map.of("a", file("one", 0644)), OptionalInt.empty());

        assertThat(changed).isFalse();
        assertThat(Files.readSymbolicLink(directory.resolve("..data"))).isEqualTo(before);
    }

    @Test
    void updatesSwapTheDataDirectoryAndRemoveStaleEntries() throws Exception {
        AtomicWriter writer = new AtomicWriter(directory, clock);
        writer.write(Map.of("a", file("one", 0644), "b", file("bee", 0644)), OptionalInt.empty());
        Path before = Files.readSymbolicLink(directory.resolve("..data"));
        clock.advance(Duration.ofSeconds(5));

        boolean changed = writer.write(Map.of("a", file("two", 0644)), OptionalInt.empty());

        assertThat(changed).isTrue();
        Path after = Files.readSymbolicLink(directory.resolve("..data"));
        assertThat(after).isNotEqualTo(before);
        assertThat(Files.readString(directory.resolve("a"))).isEqualTo("two");
        assertThat(entries()).containsExactlyInAnyOrder("..data", after.toString(), "a");
    }

    @Test
    void modeChangesAreUpdatesToo() throws Exception {
        AtomicWriter writer = new AtomicWriter(directory, clock);
        writer.write(Map.of("a", file("one", 0644)), OptionalInt.empty());

        assertThat(writer.write(Map.of("a", file("one", 0600)), OptionalInt.empty())).isTrue();
        assertThat(VolumeFiles.mode(directory.resolve("..data/a"))).isEqualTo(0600);
    }

    @Test
    void refusesPathsThatLeaveTheDirectory() {
        AtomicWriter writer = new AtomicWriter(directory, clock);

        assertThatThrownBy(() -> writer.write(Map.of("/etc/passwd", file("x", 0644)), OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be relative path");
        assertThatThrownBy(() -> writer.write(Map.of("a/../../b", file("x", 0644)), OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not contain '..'");
        assertThatThrownBy(() -> writer.write(Map.of("..data", file("x", 0644)), OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not start with '..'");
    }

    @Test
    void givesFilesTheFsGroupAndMakesThemGroupReadable() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "changing a file's group needs root");
        AtomicWriter writer = new AtomicWriter(directory, clock);

        writer.write(Map.of("a", file("one", 0600)), OptionalInt.of(4321));

        assertThat(Files.getAttribute(directory.resolve("..data/a"), "unix:gid")).isEqualTo(4321);
        assertThat(VolumeFiles.mode(directory.resolve("..data/a"))).isEqualTo(0640);
        assertThat(writer.write(Map.of("a", file("one", 0600)), OptionalInt.of(4321))).isFalse();
    }
}
