package io.k4j.launcher.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The images as a node uses them: a real containerd (own config, socket, root and state in a scratch directory)
 * pulls {@code docker.io/library/…} through the registry host configuration written by {@link RegistryMirrors}
 * from a real local registry, then runs them with runc: nginx serves its welcome page inside a network namespace
 * made for the test, busybox runs a shell, pause exits on SIGTERM. Needs root.
 */
class ContainerdImagesTest {
    private static final String PREFIX = "k4j-images-test-" + ProcessHandle.current().pid();
    private static Path directory;
    private static LocalRegistry registry;
    private static Process containerd;
    private static Path socket;
    private static Path hostsDirectory;
    private static String networkNamespace;
    private static final List<String> containers = new ArrayList<>();

    @BeforeAll
    static void startContainerd() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "containerd and runc need root");
        for (String tool : List.of("containerd", "ctr", "runc", "docker-registry", "ip")) {
            assumeTrue(HostCommands.find(tool).isPresent(), tool + " is not installed");
        }
        directory = Files.createTempDirectory("k4j-containerd");
        registry = LocalRegistry.start(directory.resolve("registry"), "127.0.0.1", 0, Optional.empty(), Progress.silent());
        LocalImages.push(TestImages.cache(), TestImages.images(), registry.endpoint(), Optional.empty(), Progress.silent());
        hostsDirectory = RegistryMirrors.write(directory.resolve("certs.d"), registry.endpoint());

        socket = directory.resolve("containerd.sock");
        Path config = directory.resolve("config.toml");
        Files.writeString(config, """
                version = 2
                root = "%1$s/root"
                state = "%1$s/state"
                [grpc]
                  address = "%2$s"
                [ttrpc]
                  address = "%2$s.ttrpc"
                [plugins."io.containerd.grpc.v1.cri"]
                  sandbox_image = "%3$s"
                  [plugins."io.containerd.grpc.v1.cri".registry]
                    config_path = "%4$s"
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    bin_dir = "/usr/lib/cni"
                    conf_dir = "%1$s/net.d"
                """.formatted(directory, socket, LocalImages.SANDBOX_IMAGE, hostsDirectory), StandardCharsets.UTF_8);
        containerd = new ProcessBuilder("containerd", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(directory.resolve("containerd.log").toFile()).start();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> ctr("version").contains("Server:"));
    }

    @AfterAll
    static void stopContainerd() throws Exception {
        if (directory == null) {
            return;
        }
        try {
            for (String container : containers) {
                quietly("ctr", "--address", socket.toString(), "-n", "k8s.io", "task", "kill", "-s", "SIGKILL", container);
            }
            for (String container : containers) {
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                        .until(() -> !ctr("task", "ls").contains(container + " ") || ctr("task", "ls").matches("(?s).*" + container + "\\s+\\d+\\s+STOPPED.*"));
                quietly("ctr", "--address", socket.toString(), "-n", "k8s.io", "task", "rm", "-f", container);
                quietly("ctr", "--address", socket.toString(), "-n", "k8s.io", "container", "rm", container);
            }
        } finally {
            if (containerd != null) {
                containerd.destroy();
                if (!containerd.waitFor(20, TimeUnit.SECONDS)) {
                    containerd.destroyForcibly();
                }
            }
            if (registry != null) {
                registry.close();
            }
            if (networkNamespace != null) {
                quietly("ip", "netns", "delete", networkNamespace);
            }
            for (String mount : mountsUnder(directory)) {
                quietly("umount", "-l", mount);
            }
            TestImages.deleteTree(directory);
        }
    }

    @Test
    void nginxPulledThroughTheMirrorServesItsWelcomePage() throws Exception {
        ctr("images", "pull", "--hosts-dir", hostsDirectory.toString(), "docker.io/library/nginx:latest");
        networkNamespace = PREFIX;
        HostCommands.run("ip", "netns", "add", networkNamespace);
        HostCommands.run("ip", "-n", networkNamespace, "link", "set", "lo", "up");
        String container = container("nginx");
        ctr("run", "-d", "--with-ns", "network:/var/run/netns/" + networkNamespace, "docker.io/library/nginx:latest", container);

        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> HostCommands.run(
                "ip", "netns", "exec", networkNamespace, "/bin/busybox", "wget", "-q", "-O", "-", "http://127.0.0.1/").contains("<title>Welcome to nginx!</title>"));
    }

    @Test
    void busyboxRunsAShellWithItsApplets() throws Exception {
        ctr("images", "pull", "--hosts-dir", hostsDirectory.toString(), "docker.io/library/busybox:latest");
        String container = container("busybox");
        String output = ctr("run", "--rm", "docker.io/library/busybox:latest", container, "sh", "-c", "echo hello from $(hostname); which tar nslookup wget");
        containers.remove(container);

        assertThat(output).contains("hello from ").contains("/bin/tar").contains("/usr/bin/nslookup").contains("/usr/bin/wget");
    }

    @Test
    void pauseRunsUntilSigterm() throws Exception {
        ctr("images", "pull", "--hosts-dir", hostsDirectory.toString(), "docker.io/library/pause:3.10");
        String container = container("pause");
        Process run = new ProcessBuilder("ctr", "--address", socket.toString(), "-n", "k8s.io", "run", "docker.io/library/pause:3.10", container)
                .redirectErrorStream(true).redirectOutput(directory.resolve(container + ".log").toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> ctr("task", "ls").matches("(?s).*" + container + "\\s+\\d+\\s+RUNNING.*"));
            assertThat(run.isAlive()).isTrue();

            ctr("task", "kill", "-s", "SIGTERM", container);

            assertThat(run.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(run.exitValue()).isZero();
        } finally {
            run.destroyForcibly();
        }
    }

    @Test
    void anAuthenticatedRegistryServesOnlyPullsWithCredentials() throws Exception {
        Path htpasswd = Htpasswd.write(directory.resolve("auth").resolve("htpasswd"), java.util.Map.of("puller", "s3cret"));
        try (LocalRegistry authenticated = LocalRegistry.start(directory.resolve("authenticated"), "127.0.0.1", 0, Optional.of(htpasswd), Progress.silent())) {
            BuiltImage busybox = TestImages.image("busybox");
            new RegistryPusher(authenticated.endpoint(), Optional.of(new RegistryPusher.Credentials("puller", "s3cret")))
                    .push(OciLayout.open(TestImages.cache().layoutDirectory()), busybox.manifest(), "private/busybox", List.of("latest"));
            RegistryMirrors.writePlainHttpHost(hostsDirectory, authenticated.hostAndPort(), authenticated.endpoint());
            String reference = authenticated.hostAndPort() + "/private/busybox:latest";

            assertThatThrownBy(() -> ctr("images", "pull", "--hosts-dir", hostsDirectory.toString(), reference))
                    .hasMessageContaining("401");
            ctr("images", "pull", "--hosts-dir", hostsDirectory.toString(), "--user", "puller:s3cret", reference);
            assertThat(ctr("images", "ls", "-q")).contains(reference);
            ctr("images", "rm", reference);
        }
    }

    private static String container(String image) {
        String name = PREFIX + "-" + image;
        containers.add(name);
        return name;
    }

    private static String ctr(String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("ctr", "--address", socket.toString(), "-n", "k8s.io"));
        command.addAll(List.of(arguments));
        return HostCommands.run(command, null);
    }

    private static void quietly(String... command) {
        try {
            HostCommands.run(command);
        } catch (IOException e) {
            // cleaning up what may not exist
        }
    }

    private static List<String> mountsUnder(Path root) throws IOException {
        List<String> mounts = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
            String[] fields = line.split(" ");
            if (fields.length > 1 && fields[1].startsWith(root.toString())) {
                mounts.add(fields[1]);
            }
        }
        return mounts.reversed();
    }
}
