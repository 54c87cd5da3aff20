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
import io.k4j.kubelet.cni.CniConfig;
import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerMetadata;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.LinuxContainerConfig;
import io.k4j.kubelet.cri.v1.LinuxPodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandbox;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import io.k4j.kubelet.cri.v1.PodSandboxMetadata;
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
    private static String bridge;
    private static String podCidr;
    private static CriConnection cri;

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

        // A bridge and subnet of the test's own, so that nothing else's cni0 on this machine is touched.
        bridge = "k4jt" + Long.toHexString(ProcessHandle.current().pid() % 0xfffff);
        podCidr = "10.199." + (ProcessHandle.current().pid() % 250) + ".0/24";
        new CniConfig("k4j-test", bridge, podCidr, Optional.of(directory.resolve("cni-networks")), false).write(directory.resolve("net.d"));

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
                  # Without CAP_SYS_RESOURCE (as in this sandbox) runc cannot lower oom_score_adj below the parent's.
                  restrict_oom_score_adj = %5$s
                  [plugins."io.containerd.grpc.v1.cri".registry]
                    config_path = "%4$s"
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    bin_dir = "/usr/lib/cni"
                    conf_dir = "%1$s/net.d"
                """.formatted(directory, socket, LocalImages.SANDBOX_IMAGE, hostsDirectory, !hasCapability(24)), StandardCharsets.UTF_8);
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
            if (cri != null) {
                for (PodSandbox sandbox : cri.runtimeService().listPodSandbox(PodSandboxFilter.getDefaultInstance())) {
                    cri.runtimeService().stopPodSandbox(sandbox.getId());
                    cri.runtimeService().removePodSandbox(sandbox.getId());
                }
                cri.close();
            }
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
            if (bridge != null) {
                quietly("ip", "link", "delete", bridge);
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

    @Test
    void criPullsThroughTheMirrorAndRunsAPodOnTheCniNetwork() throws Exception {
        cri = CriConnection.open(socket, CriTimeouts.DEFAULT);
        String image = cri.imageService().pullImage(ImageSpec.newBuilder().setImage("docker.io/library/nginx:latest").build(),
                AuthConfig.getDefaultInstance(), PodSandboxConfig.getDefaultInstance());
        assertThat(image).startsWith("sha256:");
        assertThat(cri.imageService().imageStatus(ImageSpec.newBuilder().setImage("docker.io/library/nginx:latest").build()).orElseThrow()
                .getRepoDigestsList()).contains("docker.io/library/nginx@" + TestImages.image("nginx").manifest().digest());

        Path logs = Files.createDirectories(directory.resolve("pod-logs"));
        PodSandboxConfig sandboxConfig = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setName("web").setNamespace("default").setUid("uid-web").setAttempt(0))
                .setHostname("web").setLogDirectory(logs.toString())
                .setLinux(LinuxPodSandboxConfig.getDefaultInstance())
                .build();
        // The sandbox image (pause:3.10) is pulled by containerd itself, through the same mirror.
        String sandbox = cri.runtimeService().runPodSandbox(sandboxConfig, "");
        String podIp = cri.runtimeService().podSandboxStatus(sandbox, false).getStatus().getNetwork().getIp();
        assertThat(podIp).startsWith(podCidr.substring(0, podCidr.lastIndexOf('.') + 1));

        String container = cri.runtimeService().createContainer(sandbox, ContainerConfig.newBuilder()
                .setMetadata(ContainerMetadata.newBuilder().setName("nginx"))
                .setImage(ImageSpec.newBuilder().setImage(image))
                .setLogPath("nginx.log")
                .setLinux(LinuxContainerConfig.getDefaultInstance())
                .build(), sandboxConfig);
        cri.runtimeService().startContainer(container);

        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> http.send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + podIp + "/")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body().contains("<title>Welcome to nginx!</title>"));

        cri.runtimeService().stopContainer(container, 10);
        cri.runtimeService().removeContainer(container);
        cri.runtimeService().stopPodSandbox(sandbox);
        cri.runtimeService().removePodSandbox(sandbox);
    }

    @Test
    void criPullsFromTheAuthenticatedRegistryOnlyWithCredentials() throws Exception {
        Path htpasswd = Htpasswd.write(directory.resolve("cri-auth").resolve("htpasswd"), java.util.Map.of("puller", "s3cret"));
        try (LocalRegistry authenticated = LocalRegistry.start(directory.resolve("cri-authenticated"), "127.0.0.1", 0, Optional.of(htpasswd), Progress.silent())) {
            BuiltImage busybox = TestImages.image("busybox");
            new RegistryPusher(authenticated.endpoint(), Optional.of(new RegistryPusher.Credentials("puller", "s3cret")))
                    .push(OciLayout.open(TestImages.cache().layoutDirectory()), busybox.manifest(), "private/busybox", List.of("1"));
            RegistryMirrors.writePlainHttpHost(hostsDirectory, authenticated.hostAndPort(), authenticated.endpoint());
            ImageSpec image = ImageSpec.newBuilder().setImage(authenticated.hostAndPort() + "/private/busybox:1").build();
            CriConnection connection = cri != null ? cri : CriConnection.open(socket, CriTimeouts.DEFAULT);
            cri = connection;

            assertThatThrownBy(() -> connection.imageService().pullImage(image, AuthConfig.getDefaultInstance(), PodSandboxConfig.getDefaultInstance()))
                    .isInstanceOf(CriException.class).hasMessageContaining("401");
            connection.imageService().pullImage(image,
                    AuthConfig.newBuilder().setUsername("puller").setPassword("s3cret").build(), PodSandboxConfig.getDefaultInstance());
            assertThat(connection.imageService().imageStatus(image).orElseThrow().getRepoDigestsList())
                    .contains(authenticated.hostAndPort() + "/private/busybox@" + busybox.manifest().digest());
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

    /** Whether this process has the capability (by number, 24 = CAP_SYS_RESOURCE) in its effective set. */
    private static boolean hasCapability(int capability) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("CapEff:")) {
                return (Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16) & (1L << capability)) != 0;
            }
        }
        return false;
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
