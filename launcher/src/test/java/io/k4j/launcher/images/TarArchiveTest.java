package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The archives are read back with GNU tar, which knows nothing of how they were written. */
class TarArchiveTest {
    @TempDir
    Path directory;

    @Test
    void gnuTarReadsDirectoriesFilesLinksModesAndLongNames() throws Exception {
        assumeTrue(HostCommands.find("tar").isPresent(), "no tar on this host");
        String longName = "usr/share/" + "a-rather-long-directory-name/".repeat(5) + "file.txt";
        ImageFilesystem filesystem = new ImageFilesystem()
                .directory("tmp", 01777)
                .file("etc/passwd", 0644, "root:x:0:0:root:/root:/bin/sh\n")
                .symbolicLink("bin/sh", "/bin/busybox")
                .file(longName, 0600, "long\n");
        Path archive = directory.resolve("layer.tar");
        try (var out = Files.newOutputStream(archive)) {
            TarArchive.write(filesystem, out);
        }

        String listing = HostCommands.run("tar", "--numeric-owner", "-tvf", archive.toString());
        assertThat(listing).contains("drwxrwxrwt 0/0", "tmp/")
                .contains("-rw-r--r-- 0/0", "etc/passwd")
                .contains("lrwxrwxrwx 0/0", "bin/sh -> /bin/busybox")
                .contains(longName);
        Path extracted = Files.createDirectory(directory.resolve("extracted"));
        HostCommands.run(List.of("tar", "-xf", archive.toString(), "-C", extracted.toString()), null);
        assertThat(extracted.resolve(longName)).hasContent("long");
        assertThat(extracted.resolve("etc/passwd")).hasContent("root:x:0:0:root:/root:/bin/sh");
    }

    @Test
    void theSameFilesystemGivesTheSameBytesWhateverTheOrderOfAdding() throws Exception {
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        TarArchive.write(new ImageFilesystem().file("b", 0644, "b").file("a/c", 0755, "c").symbolicLink("d", "b"), first);
        ByteArrayOutputStream second = new ByteArrayOutputStream();
        TarArchive.write(new ImageFilesystem().symbolicLink("d", "b").file("a/c", 0755, "c").file("b", 0644, "b"), second);

        assertThat(first.toByteArray()).isEqualTo(second.toByteArray());
        assertThat(first.size() % 512).isZero();
    }
}
