package io.k4j.launcher.packages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.k4j.launcher.images.HostCommands;
import io.k4j.launcher.images.Progress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against the real dpkg database of this (Debian) machine; never installs anything. */
class PackageInstallerTest {
    private static final PackageInstaller.RequiredPackage PRESENT =
            new PackageInstaller.RequiredPackage("coreutils", Path.of("/bin/ls"), "ls");
    private static final PackageInstaller.RequiredPackage ABSENT =
            new PackageInstaller.RequiredPackage("k4j-no-such-package", Path.of("/nonexistent/k4j"), "nothing");

    @BeforeEach
    void requireDpkg() {
        assumeTrue(HostCommands.find("dpkg-query").isPresent(), "not a Debian system");
    }

    @Test
    void reportsOnlyThePackagesThatAreNotInstalled() {
        assertThat(PackageInstaller.missing(List.of(PRESENT, ABSENT))).containsExactly(ABSENT);
    }

    @Test
    void nothingMissingMeansNothingToDo() throws Exception {
        List<String> reported = new ArrayList<>();
        PackageInstaller.ensureInstalled(List.of(PRESENT), reported::add, false, false);
        assertThat(reported).isEmpty();
    }

    @Test
    void withoutRootOneMessageNamesEveryMissingPackageAndTheCommand() {
        PackageInstaller.RequiredPackage alsoAbsent = new PackageInstaller.RequiredPackage("k4j-other-missing", Path.of("/nonexistent/other"), "more");

        assertThatThrownBy(() -> PackageInstaller.ensureInstalled(List.of(PRESENT, ABSENT, alsoAbsent), Progress.silent(), false, false))
                .isInstanceOfSatisfying(PackageInstaller.MissingPackagesException.class,
                        e -> assertThat(e.packages()).containsExactly("k4j-no-such-package", "k4j-other-missing"))
                .hasMessageContaining("k4j-no-such-package (nothing)")
                .hasMessageContaining("as root: apt-get install k4j-no-such-package k4j-other-missing");
    }

    @Test
    void theNodePackagesAreTheRuntimeNetworkImageSourcesAndRegistry() {
        assertThat(PackageInstaller.NODE_PACKAGES).extracting(PackageInstaller.RequiredPackage::debianPackage)
                .containsExactly("containerd", "runc", "containernetworking-plugins", "iptables", "busybox-static", "docker-registry");
    }
}
