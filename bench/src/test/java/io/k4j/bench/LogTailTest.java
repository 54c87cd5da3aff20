package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTailTest {
    @TempDir
    Path directory;

    @Test
    void returnsOnlyCompleteLinesWrittenAfterTheTailWasMade() throws Exception {
        Path log = Files.writeString(directory.resolve("server.log"), "before the tail\n");
        try (LogTail tail = LogTail.fromEnd(log)) {
            assertThat(tail.poll()).isEmpty();

            Files.writeString(log, "first line\nsecond li", StandardOpenOption.APPEND);
            assertThat(tail.poll()).containsExactly("first line");

            Files.writeString(log, "ne\nthird line\n", StandardOpenOption.APPEND);
            assertThat(tail.poll()).containsExactly("second line", "third line");
            assertThat(tail.poll()).isEmpty();
        }
    }
}
