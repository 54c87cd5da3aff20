package io.k4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.kubelet.KubeletLocation;
import io.k4j.apiserver.kubelet.KubeletResponse;
import io.k4j.apiserver.pki.ClusterPki;
import io.k4j.apiserver.pki.PkiOptions;
import io.k4j.apiserver.pki.TlsContexts;
import io.k4j.apiserver.spdy.SpdyConnection;
import io.k4j.apiserver.spdy.SpdyStream;
import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.ContainerConfig;
import io.k4j.kubelet.cri.v1.ContainerMetadata;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.LinuxContainerConfig;
import io.k4j.kubelet.cri.v1.LinuxContainerSecurityContext;
import io.k4j.kubelet.cri.v1.LinuxPodSandboxConfig;
import io.k4j.kubelet.cri.v1.LinuxSandboxSecurityContext;
import io.k4j.kubelet.cri.v1.NamespaceMode;
import io.k4j.kubelet.cri.v1.NamespaceOption;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.cri.v1.PodSandboxMetadata;
import io.k4j.kubelet.server.CriStreamingRuntime;
import io.k4j.kubelet.server.KubeletAuth;
import io.k4j.kubelet.server.KubeletServer;
import io.k4j.kubelet.server.KubeletServerConfig;
import io.k4j.kubelet.server.KubeletUser;
import io.k4j.kubelet.server.PodContainerLocator;
import io.k4j.kubelet.server.PodLogPaths;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kubelet server over a real containerd (CRI, runc, its streaming server on loopback), reached as the apiserver
 * reaches it (the cluster PKI's kubelet-client certificate, the kubelet's serving certificate checked against the CA):
 * a container's CRI log file, exec over SPDY with stdin half-closed and exit codes, and port-forward into a host-network
 * sandbox on 127.0.0.1. Runs as root only, with containerd and runc installed; the image is a one-layer busybox built
 * here from busybox-static.
 */
class KubeletStreamingContainerdTest {
    private static final String IMAGE = "k4j.test/busybox:streaming";
    private static final String NODE = "stream-node";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path directory;
    private static Process containerd;
    private static CriConnection cri;
    private static RuntimeService runtime;
    private static String sandboxId;
    private static String containerId;
    private static Path logFile;
    private static int httpPort;
    private static KubeletServer server;
    private static KubeletClient kubelets;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue("0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes()).trim()), "needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/containerd")) && Files.isExecutable(Path.of("/usr/bin/runc")), "needs containerd and runc");
        assumeTrue(Files.isExecutable(Path.of("/bin/busybox")), "needs busybox-static");
        directory = Files.createTempDirectory(Path.of("/tmp"), "k4j-stream");
        Path socket = directory.resolve("containerd.sock");
        Files.createDirectories(directory.resolve("cni"));
        Files.writeString(directory.resolve("config.toml"), """
                version = 2
                root = "%1$s/root"
                state = "%1$s/state"
                [grpc]
                  address = "%2$s"
                [plugins]
                  [plugins."io.containerd.grpc.v1.cri"]
                    sandbox_image = "%3$s"
                    stream_server_address = "127.0.0.1"
                    stream_server_port = "0"
                    # Without CAP_SYS_RESOURCE (as in this sandbox) runc cannot lower oom_score_adj below the parent's.
                    restrict_oom_score_adj = true
                    [plugins."io.containerd.grpc.v1.cri".containerd]
                      snapshotter = "overlayfs"
                    [plugins."io.containerd.grpc.v1.cri".cni]
                      bin_dir = "/usr/lib/cni"
                      conf_dir = "%1$s/cni"
                """.formatted(directory, socket, IMAGE));
        containerd = new ProcessBuilder("/usr/bin/containerd", "--config", directory.resolve("config.toml").toString())
                .redirectErrorStream(true).redirectOutput(directory.resolve("containerd.log").toFile()).start();
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(socket));
        run("/usr/bin/ctr", "--address", socket.toString(), "-n", "k8s.io", "images", "import", buildImage().toString());

        cri = CriConnection.open(socket, CriTimeouts.DEFAULT);
        runtime = cri.runtimeService();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> runtime.version(RuntimeService.API_VERSION) != null);

        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            httpPort = free.getLocalPort();
        }
        Path logsRoot = PodLogPaths.root(directory);
        NamespaceOption hostNetwork = NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE).build();
        PodSandboxConfig sandbox = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setName("web").setNamespace("default").setUid("uid-web"))
                .setLogDirectory(PodLogPaths.podDirectory(logsRoot, "default", "web", "uid-web").toString())
                .setLinux(LinuxPodSandboxConfig.newBuilder().setSecurityContext(LinuxSandboxSecurityContext.newBuilder().setNamespaceOptions(hostNetwork)))
                .build();
        sandboxId = runtime.runPodSandbox(sandbox, "");
        ContainerConfig container = ContainerConfig.newBuilder()
                .setMetadata(ContainerMetadata.newBuilder().setName("c1"))
                .setImage(ImageSpec.newBuilder().setImage(IMAGE))
                .addAllCommand(List.of("/bin/sh", "-c", "echo first line; echo to stderr >&2; mkdir -p /www; echo served > /www/index.html; "
                        + "exec httpd -f -p 127.0.0.1:" + httpPort + " -h /www"))
                .setLogPath(PodLogPaths.relativeContainerLog("c1", 0))
                .setLinux(LinuxContainerConfig.newBuilder().setSecurityContext(LinuxContainerSecurityContext.newBuilder().setNamespaceOptions(hostNetwork)))
                .build();
        containerId = runtime.createContainer(sandboxId, container, sandbox);
        runtime.startContainer(containerId);
        logFile = PodLogPaths.containerLog(logsRoot, "default", "web", "uid-web", "c1", 0);

        ClusterPki pki = ClusterPki.loadOrCreate(directory.resolve("pki"), PkiOptions.of("k4j-host", NODE, InetAddress.getByName("10.43.0.1")));
        KubeletServerConfig config = new KubeletServerConfig(NODE, InetAddress.getLoopbackAddress(), 0,
                TlsContexts.serverContext(pki.kubeletServingCertificate(NODE, List.of("localhost"), List.of(InetAddress.getLoopbackAddress())),
                        List.of(pki.caCertificate())),
                Duration.ofMillis(200));
        pki.awaitBackgroundWork();
        server = KubeletServer.start(config, new OnePodLocator(), new CriStreamingRuntime(runtime), new MastersOnly(), InstantSource.system());
        kubelets = new KubeletClient(resource -> Optional.empty(),
                () -> TlsContexts.clientContext(List.of(pki.caCertificate()), Optional.of(pki.apiServerKubeletClient())), Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (runtime != null && sandboxId != null) {
            runtime.stopPodSandbox(sandboxId);
            runtime.removePodSandbox(sandboxId);
        }
        if (cri != null) {
            cri.close();
        }
        if (containerd != null) {
            containerd.destroy();
            containerd.waitFor(30, TimeUnit.SECONDS);
        }
        if (directory != null) {
            // Unmounts whatever containerd left (overlay mounts of the removed sandbox are gone already).
            run("/bin/rm", "-rf", directory.toString());
        }
    }

    @Test
    void servesTheContainersCriLog() throws Exception {
        KubeletLocation location = new KubeletLocation(NODE, "127.0.0.1", server.port());
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(logFile) && Files.readString(logFile).contains("to stderr"));
        try (KubeletResponse response = kubelets.send(location, "GET", "/containerLogs/default/web/c1", Map.of())) {
            assertThat(response.status()).isEqualTo(200);
            String log = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(log.lines().toList()).containsExactlyInAnyOrder("first line", "to stderr");
        }
    }

    @Test
    void execsThroughContainerdsStreamingServerOverSpdy() throws Exception {
        Exec echo = exec("/exec/default/web/c1?command=sh&command=-c&command=cat%3B+echo+done&input=1&output=1", "piped\n");
        assertThat(echo.stdout()).isEqualTo("piped\ndone\n");
        assertThat(JSON.readTree(echo.status()).path("status").asText()).isEqualTo("Success");

        Exec failing = exec("/exec/default/web/c1?command=sh&command=-c&command=exit+3&output=1", null);
        assertThat(JSON.readTree(failing.status()).path("reason").asText()).isEqualTo("NonZeroExitCode");
        assertThat(JSON.readTree(failing.status()).path("details").path("causes").get(0).path("message").asText()).isEqualTo("3");
    }

    @Test
    void forwardsAPortOfTheSandbox() throws Exception {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try (java.net.Socket probe = new java.net.Socket("127.0.0.1", httpPort)) {
                return true;
            }
        });
        KubeletResponse response = kubelets.send(new KubeletLocation(NODE, "127.0.0.1", server.port()), "POST", "/portForward/default/web",
                Map.of("Connection", List.of("Upgrade"), "Upgrade", List.of("SPDY/3.1"), "X-Stream-Protocol-Version", List.of("portforward.k8s.io")));
        assertThat(response.status()).isEqualTo(101);
        try (SpdyConnection session = new SpdyConnection(response.rawInput(), response.rawOutput(), response, SpdyConnection.Role.CLIENT, stream -> { })
                .start("test-port-forward")) {
            String port = Integer.toString(httpPort);
            SpdyStream error = session.openStream(Map.of("streamType", List.of("error"), "port", List.of(port), "requestID", List.of("0")));
            SpdyStream data = session.openStream(Map.of("streamType", List.of("data"), "port", List.of(port), "requestID", List.of("0")));
            assertThat(error.awaitReply(Duration.ofSeconds(30))).isTrue();
            assertThat(data.awaitReply(Duration.ofSeconds(30))).isTrue();
            data.output().write("GET /index.html HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new String(data.input().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.").contains("served");
        }
    }

    private record Exec(String stdout, String status) {}

    private static Exec exec(String path, String stdin) throws Exception {
        KubeletResponse response = kubelets.send(new KubeletLocation(NODE, "127.0.0.1", server.port()), "POST", path,
                Map.of("Connection", List.of("Upgrade"), "Upgrade", List.of("SPDY/3.1"), "X-Stream-Protocol-Version", List.of("v4.channel.k8s.io")));
        assertThat(response.status()).as(response.status() == 101 ? "" : response.bodyText(4096)).isEqualTo(101);
        assertThat(response.header("x-stream-protocol-version")).isEqualTo("v4.channel.k8s.io");
        try (SpdyConnection session = new SpdyConnection(response.rawInput(), response.rawOutput(), response, SpdyConnection.Role.CLIENT, stream -> { })
                .start("test-exec")) {
            SpdyStream error = session.openStream(Map.of("streamType", List.of("error")));
            assertThat(error.awaitReply(Duration.ofSeconds(30))).isTrue();
            if (stdin != null) {
                SpdyStream input = session.openStream(Map.of("streamType", List.of("stdin")));
                assertThat(input.awaitReply(Duration.ofSeconds(30))).isTrue();
                try (OutputStream output = input.output()) {
                    output.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            SpdyStream stdout = session.openStream(Map.of("streamType", List.of("stdout")));
            assertThat(stdout.awaitReply(Duration.ofSeconds(30))).isTrue();
            String out = new String(stdout.input().readAllBytes(), StandardCharsets.UTF_8);
            String status = new String(error.input().readAllBytes(), StandardCharsets.UTF_8);
            return new Exec(out, status);
        }
    }

    /** Lets only the cluster's administrators in (the apiserver's kubelet-client identity is one). */
    private static final class MastersOnly implements KubeletAuth {
        @Override
        public Optional<KubeletUser> authenticate(List<X509Certificate> verifiedChain, Optional<String> bearerToken) {
            return verifiedChain.isEmpty() ? Optional.empty() : Optional.of(fromCertificate(verifiedChain.get(0)));
        }

        @Override
        public boolean authorize(KubeletUser user, String verb, String nodeName, String subresource) {
            return user.groups().contains("system:masters") && nodeName.equals(NODE);
        }

        private static KubeletUser fromCertificate(X509Certificate certificate) {
            return new KubeletUser(ClusterPki.commonName(certificate), "", ClusterPki.organizations(certificate), Map.of());
        }
    }

    /** The one pod of this test, its container running under the id containerd gave it. */
    private static final class OnePodLocator implements PodContainerLocator {
        @Override
        public List<Pod> pods() {
            return List.of(pod());
        }

        @Override
        public Optional<Pod> pod(String namespace, String name) {
            return namespace.equals("default") && name.equals("web") ? Optional.of(pod()) : Optional.empty();
        }

        @Override
        public Optional<Path> logPath(String id) {
            return id.equals(containerId) ? Optional.of(logFile) : Optional.empty();
        }

        @Override
        public Optional<String> sandboxId(Pod pod) {
            return Optional.of(sandboxId);
        }

        private static Pod pod() {
            return new PodBuilder().withNewMetadata().withNamespace("default").withName("web").withUid("uid-web").endMetadata()
                    .withNewSpec().withNodeName(NODE).addNewContainer().withName("c1").withImage(IMAGE).endContainer().endSpec()
                    .withNewStatus().withPhase("Running").addNewContainerStatus().withName("c1").withContainerID("containerd://" + containerId)
                    .withNewState().withNewRunning().endRunning().endState().endContainerStatus().endStatus()
                    .build();
        }
    }

    /** A one-layer image: busybox-static with its applets, as a {@code docker save} archive that ctr imports. */
    private static Path buildImage() throws Exception {
        Path image = directory.resolve("image");
        Path rootfs = image.resolve("rootfs");
        Files.createDirectories(rootfs.resolve("bin"));
        Files.createDirectories(rootfs.resolve("tmp"));
        Files.copy(Path.of("/bin/busybox"), rootfs.resolve("bin/busybox"));
        for (String applet : List.of("sh", "cat", "echo", "sleep", "mkdir", "httpd", "tar", "hostname")) {
            Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        run("/bin/tar", "-C", rootfs.toString(), "-cf", image.resolve("layer.tar").toString(), ".");
        String diffId = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(image.resolve("layer.tar"))));
        Files.writeString(image.resolve("config.json"), """
                {"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"],"Cmd":["/bin/sleep","3600"]},\
                "rootfs":{"type":"layers","diff_ids":["%s"]}}""".formatted(diffId));
        Files.writeString(image.resolve("manifest.json"), """
                [{"Config":"config.json","RepoTags":["%s"],"Layers":["layer.tar"]}]""".formatted(IMAGE));
        Path archive = directory.resolve("image.tar");
        run("/bin/tar", "-C", image.toString(), "-cf", archive.toString(), "manifest.json", "config.json", "layer.tar");
        return archive;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + new String(output, StandardCharsets.UTF_8)).isZero();
    }
}
