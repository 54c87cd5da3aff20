package io.k4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WorkDirectoryTest {
    @Test
    void removesTheDirectoryWithEverythingInIt() throws Exception {
        Path work = Files.createTempDirectory("k4j-bench-test");
        Path data = Files.createDirectories(work.resolve("main/data"));
        Files.writeString(data.resolve("k4j.db"), "database");
        Files.writeString(work.resolve("bench-tokens.csv"), "token");
        Files.createSymbolicLink(work.resolve("outside"), Path.of(System.getProperty("java.home")));

        WorkDirectory.remove(work);

        assertThat(work).doesNotExist();
        assertThat(Path.of(System.getProperty("java.home"))).as("a link's target is left alone").isDirectory();
    }
}
