package io.k4j.kubelet.containerd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.VersionResponse;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real containerd started by k4j in a temporary directory (needs root and Debian's containerd). */
class ContainerdProcessTest {
    @Test
    void startsContainerdAndStopsItOnClose() throws Exception {
        Path directory = RealContainerd.temporaryDirectory();
        long pid;
        try (ContainerdProcess containerd = ContainerdProcess.start(config(directory), Duration.ofSeconds(30));
                CriConnection connection = CriConnection.open(containerd.endpoint(), CriTimeouts.DEFAULT)) {
            VersionResponse version = connection.runtimeService().version(RuntimeService.API_VERSION);
            assertThat(version.getRuntimeName()).isEqualTo("containerd");
            assertThat(version.getRuntimeVersion()).startsWith("1.6.");
            assertThat(containerd.isReady()).isTrue();
            pid = containerd.pid().orElseThrow();
        }
        finally {
            RealContainerd.deleteDirectory(directory);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void restartsContainerdWhenItDies() throws Exception {
        Path directory = RealContainerd.temporaryDirectory();
        List<Boolean> readiness = new CopyOnWriteArrayList<>();
        try (ContainerdProcess containerd = ContainerdProcess.start(config(directory), Duration.ofSeconds(30))) {
            containerd.onReadinessChange(readiness::add);
            long firstPid = containerd.pid().orElseThrow();

            ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();

            await().atMost(Duration.ofSeconds(30)).until(() -> readiness.equals(List.of(false, true)));
            assertThat(containerd.isReady()).isTrue();
            assertThat(containerd.pid()).isPresent().isNotEqualTo(Optional.of(firstPid));
            try (CriConnection connection = CriConnection.open(containerd.endpoint(), CriTimeouts.DEFAULT)) {
                assertThat(connection.runtimeService().version(RuntimeService.API_VERSION).getRuntimeName())
                        .isEqualTo("containerd");
            }
        }
        finally {
            RealContainerd.deleteDirectory(directory);
        }
    }

    @Test
    void adoptsTheContainerdAKilledK4jLeftRunning() throws Exception {
        Path directory = RealContainerd.temporaryDirectory();
        try {
            ContainerdProcess first = ContainerdProcess.start(config(directory), Duration.ofSeconds(30));
            long pid = first.pid().orElseThrow();
            first.detach();

            try (ContainerdProcess second = ContainerdProcess.start(config(directory), Duration.ofSeconds(30))) {
                assertThat(second.pid()).contains(pid);
                assertThat(second.isReady()).isTrue();
            }
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        }
        finally {
            RealContainerd.deleteDirectory(directory);
        }
    }

    private static ContainerdConfig config(Path directory) {
        return ContainerdConfig.defaults(directory, directory.resolve("cni"), Optional.empty());
    }
}
