package io.k4j.kubelet.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemMounterTest {
    @Test
    void unescapesMountInfoPaths() {
        assertThat(SystemMounter.unescape("/var/lib/with\\040space")).isEqualTo("/var/lib/with space");
        assertThat(SystemMounter.unescape("/tab\\011and\\134backslash")).isEqualTo("/tab\tand\\backslash");
        assertThat(SystemMounter.unescape("/plain\\x")).isEqualTo("/plain\\x");
    }

    @Test
    void aTmpfsIsAMountPointAndItsParentAndAPlainDirectoryAreNot(@TempDir Path directory) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting needs root");
        SystemMounter mounter = new SystemMounter();
        Path mounted = Files.createDirectory(directory.resolve("mounted"));
        Path plain = Files.createDirectory(directory.resolve("plain"));
        mounter.mountTmpfs(mounted, OptionalLong.of(1 << 20));
        try {
            assertThat(mounter.isMountPoint(mounted)).isTrue();
            assertThat(mounter.isMountPoint(plain)).isFalse();
            assertThat(mounter.isMountPoint(directory)).isEqualTo(mounter.mountPointsUnder(directory).contains(directory));
            // The device check and the mount table agree on the tmpfs.
            assertThat(mounter.mountPointsUnder(directory)).contains(mounted.toAbsolutePath().normalize());
        } finally {
            mounter.unmount(mounted);
        }
        assertThat(mounter.isMountPoint(mounted)).isFalse();
    }
}
