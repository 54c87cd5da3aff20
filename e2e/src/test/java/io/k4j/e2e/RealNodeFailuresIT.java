package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Issue 4's failures on a real node, as the real kubectl shows them: per-container events, an unknown image, a command
 * that does not exist, a missing ConfigMap, containerd dying, and a pod bound past the node's capacity. One
 * {@code k4j server} with its node for the class. Needs root and the node's Debian packages.
 */
class RealNodeFailuresIT {
    private static K4jServer server;
    private static Kubectl kubectl;
    private static String node;

    @BeforeAll
    static void start() {
        K4jServer.assumeRealNodePossible();
        server = K4jServer.startWithNode(Path.of("/tmp").resolve("k4j-failures-" + ProcessHandle.current().pid()));
        kubectl = new Kubectl(server.kubeconfig());
        server.awaitNodeReady();
        node = kubectl.run("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}").assertSuccess().stdout();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server == null) {
            return;
        }
        try {
            kubectl.run("delete", "pods", "--all", "--grace-period=1", "--wait=true", "--timeout=90s");
        }
        finally {
            server.closeAndRemoveNode(Path.of("target", "RealNodeFailuresIT-server.log"));
        }
    }

    @Test
    void containerEventsNameTheirContainerAndDescribeShowsThem() {
        create("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: events
                spec:
                  terminationGracePeriodSeconds: 1
                  initContainers:
                  - name: setup
                    image: busybox
                    command: ["true"]
                  containers:
                  - name: c1
                    image: busybox:1.35
                    command: ["sleep", "3600"]
                    livenessProbe:
                      exec:
                        command: ["sh", "-c", "exit 3"]
                      periodSeconds: 1
                      failureThreshold: 2
                """);

        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                assertThat(events("events")).contains(
                        "spec.initContainers{setup}|Normal|Pulling|Pulling image \"busybox\"",
                        "spec.initContainers{setup}|Normal|Created|Created container setup",
                        "spec.initContainers{setup}|Normal|Started|Started container setup",
                        "spec.containers{c1}|Normal|Pulled|Container image \"busybox:1.35\" already present on machine",
                        "spec.containers{c1}|Normal|Created|Created container c1",
                        "spec.containers{c1}|Normal|Started|Started container c1",
                        "spec.containers{c1}|Normal|Killing|Container c1 failed liveness probe, will be restarted"));
        assertThat(events("events")).anyMatch(event -> event.startsWith("spec.containers{c1}|Warning|Unhealthy|Liveness probe failed"));
        assertThat(events("events")).anyMatch(event -> event.matches(
                "spec\\.initContainers\\{setup}\\|Normal\\|Pulled\\|Successfully pulled image \"busybox\" in [0-9.]+m?s "
                        + "\\([0-9.]+m?s including waiting\\)\\. Image size: [0-9]+ bytes\\."));

        String described = kubectl.run("describe", "pod", "events").assertSuccess().stdout();
        assertThat(described).contains("Events:").containsPattern("Normal +Started .* kubelet +Started container c1")
                .containsPattern("Warning +Unhealthy .* kubelet +Liveness probe failed");
    }

    @Test
    void anUnknownImageIsErrImagePullThenImagePullBackOffWithTheRegistrysMessage() throws Exception {
        // Straight from k4j's local registry, which answers "not found"; a docker.io name it lacks would fall through
        // to Docker Hub, unreachable here, and fail with the resolver's error instead.
        String hosts = Files.readString(server.dataDirectory().resolve("agent/registry/certs.d/docker.io/hosts.toml"));
        java.util.regex.Matcher local = java.util.regex.Pattern.compile("http://(127\\.0\\.0\\.1:[0-9]+)").matcher(hosts);
        assertThat(local.find()).as("the local registry in %s", hosts).isTrue();
        String image = local.group(1) + "/library/no-such-image:1.0";
        try (Watch reasons = Watch.waitingReasons("unknown-image")) {
            create("""
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: unknown-image
                    spec:
                      containers:
                      - name: c1
                        image: %s
                    """.formatted(image));

            awaitWaitingReasons(reasons, "ErrImagePull", "ImagePullBackOff");
        }
        assertThat(kubectl.run("get", "pod", "unknown-image").assertSuccess().stdout())
                .containsPattern("unknown-image +0/1 +(ImagePullBackOff|ErrImagePull) +0");
        // ImagePullBackOff repeats the pull's error; ErrImagePull (after each back-off) is the error itself.
        String pullError = "rpc error: code = NotFound desc = failed to pull and unpack image \"" + image
                + "\": failed to resolve reference \"" + image + "\": " + image + ": not found";
        assertThat(waitingMessage("unknown-image")).isIn(pullError,
                "Back-off pulling image \"" + image + "\": ErrImagePull: " + pullError);
        assertThat(events("unknown-image")).contains(
                "spec.containers{c1}|Normal|Pulling|Pulling image \"" + image + "\"",
                "spec.containers{c1}|Warning|Failed|Failed to pull image \"" + image + "\": " + pullError,
                "spec.containers{c1}|Warning|Failed|Error: ErrImagePull",
                "spec.containers{c1}|Normal|BackOff|Back-off pulling image \"" + image + "\"",
                "spec.containers{c1}|Warning|Failed|Error: ImagePullBackOff");
    }

    @Test
    void aCommandThatDoesNotExistIsRunContainerErrorThenCrashLoopBackOff() throws Exception {
        try (Watch reasons = Watch.waitingReasons("no-command")) {
            create("""
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: no-command
                    spec:
                      containers:
                      - name: c1
                        image: busybox:1.35
                        command: ["/no/such/command"]
                    """);

            awaitWaitingReasons(reasons, "RunContainerError", "CrashLoopBackOff");
        }
        assertThat(kubectl.run("get", "pod", "no-command").assertSuccess().stdout())
                .containsPattern("no-command +0/1 +(CrashLoopBackOff|RunContainerError) +[1-9]");
        assertThat(waitingMessage("no-command")).startsWith("back-off 10s restarting failed container=c1 pod=no-command_default(");
        String lastState = kubectl.run("get", "pod", "no-command", "-o",
                "jsonpath={.status.containerStatuses[0].lastState.terminated.reason} "
                        + "{.status.containerStatuses[0].lastState.terminated.exitCode} "
                        + "{.status.containerStatuses[0].lastState.terminated.message}").assertSuccess().stdout();
        assertThat(lastState).startsWith("StartError 128 ").contains("/no/such/command").contains("no such file or directory");
        assertThat(events("no-command")).anyMatch(event -> event.startsWith("spec.containers{c1}|Warning|Failed|Error: ")
                && event.contains("no such file or directory"));
        assertThat(events("no-command")).anyMatch(event -> event.startsWith(
                "spec.containers{c1}|Warning|BackOff|Back-off restarting failed container c1 in pod no-command_default("));
    }

    /**
     * Waits until the pod's first container waited for {@code first} and after it for {@code then}. The watch, opened
     * before the pod was created, may still begin after the first {@code first} (kubectl starts slowly on a loaded
     * machine, and the kubelet reaches ErrImagePull within a second); each back-off then ends in {@code first} again.
     */
    private static void awaitWaitingReasons(Watch reasons, String first, String then) {
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                assertThat(reasons.lines().stream().filter(reason -> !reason.isEmpty())).containsSubsequence(first, then));
    }

    @Test
    void aMissingConfigMapKeepsThePodContainerCreatingUntilItAppears() {
        create("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: needs-config
                spec:
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: c1
                    image: busybox:1.35
                    command: ["sleep", "3600"]
                    volumeMounts:
                    - name: cfg
                      mountPath: /config
                  volumes:
                  - name: cfg
                    configMap:
                      name: settings
                """);

        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(events("needs-config")).contains(
                        "|Warning|FailedMount|MountVolume.SetUp failed for volume \"cfg\" : configmap \"settings\" not found"));
        assertThat(kubectl.run("get", "pod", "needs-config").assertSuccess().stdout())
                .containsPattern("needs-config +0/1 +ContainerCreating +0");
        assertThat(kubectl.run("describe", "pod", "needs-config").assertSuccess().stdout())
                .containsPattern("Warning +FailedMount .* kubelet +MountVolume.SetUp failed for volume \"cfg\" : "
                        + "configmap \"settings\" not found");

        kubectl.run("create", "configmap", "settings", "--from-literal=greeting=hello").assertSuccess();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "needs-config", "-o", "jsonpath={.status.phase}").stdout().equals("Running"));
        assertThat(kubectl.run("exec", "needs-config", "--", "cat", "/config/greeting").assertSuccess().stdout())
                .isEqualTo("hello");
    }

    @Test
    void aPodBoundPastTheNodesCpuIsRejectedByKubeletAdmission() {
        String capacity = kubectl.run("get", "node", node, "-o", "jsonpath={.status.allocatable.cpu}").assertSuccess()
                .stdout();
        create("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: too-big
                spec:
                  nodeName: %s
                  containers:
                  - name: c1
                    image: busybox:1.35
                    command: ["sleep", "3600"]
                    resources:
                      requests:
                        cpu: "1000"
                """.formatted(node));

        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "too-big", "-o", "jsonpath={.status.phase}").stdout().equals("Failed"));
        String status = kubectl.run("get", "pod", "too-big", "-o", "jsonpath={.status.reason}|{.status.message}")
                .assertSuccess().stdout();
        long capacityMillis = capacity.endsWith("m") ? Long.parseLong(capacity.substring(0, capacity.length() - 1))
                : Long.parseLong(capacity) * 1000;
        assertThat(status).matches("OutOfcpu\\|Pod was rejected: Node didn't have enough resource: cpu, "
                + "requested: 1000000, used: [0-9]+, capacity: " + capacityMillis);
        assertThat(kubectl.run("get", "pod", "too-big").assertSuccess().stdout()).containsPattern("too-big +0/1 +OutOfcpu +0");
        assertThat(events("too-big")).contains("|Warning|OutOfcpu|" + status.substring(status.indexOf('|') + 1));
    }

    @Test
    void aKilledContainerdIsRestartedWhileTheNodeIsNotReadyAndThePodsKeepRunning() throws Exception {
        create("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: steady
                spec:
                  terminationGracePeriodSeconds: 1
                  containers:
                  - name: c1
                    image: busybox:1.35
                    command: ["sleep", "3600"]
                """);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "steady", "-o", "jsonpath={.status.phase}").stdout().equals("Running"));
        String before = kubectl.run("get", "pod", "steady", "-o",
                "jsonpath={.status.podIP} {.status.containerStatuses[0].containerID}").assertSuccess().stdout();

        // Watch the node's Ready condition while containerd is down: the NotReady window lasts about a second.
        String ready = ".status.conditions[?(@.type==\"Ready\")]";
        try (Watch readiness = Watch.of("node", node, "{" + ready + ".status}|{" + ready + ".reason}|{" + ready + ".message}")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> readiness.lines().contains("True|KubeletReady|kubelet is posting ready status"));
            Path pidFile = server.dataDirectory().resolve("agent/containerd/containerd.pid");
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle containerd = ProcessHandle.of(pid).orElseThrow();
            assertThat(containerd.info().commandLine().orElse("")).contains("containerd").contains(server.dataDirectory().toString());
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                    assertThat(readiness.lines()).contains("False|KubeletNotReady|container runtime is down"));
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                    readiness.lines().getLast().equals("True|KubeletReady|kubelet is posting ready status"));
        }
        long restarted = Long.parseLong(Files.readString(server.dataDirectory().resolve("agent/containerd/containerd.pid")).trim());
        assertThat(ProcessHandle.of(restarted)).hasValueSatisfying(process -> assertThat(process.isAlive()).isTrue());

        String nodeEvents = kubectl.run("get", "events", "-n", "default", "--field-selector", "involvedObject.kind=Node",
                "-o", "jsonpath={range .items[*]}{.reason}|{.message}{\"\\n\"}{end}").assertSuccess().stdout();
        assertThat(nodeEvents).contains("NodeNotReady|Node " + node + " status is now: NodeNotReady",
                "NodeReady|Node " + node + " status is now: NodeReady");
        // The pod's container lived on in its shim: same IP, same container, no restart.
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(30)).until(() -> kubectl.run("get", "pod",
                "steady", "-o", "jsonpath={.status.podIP} {.status.containerStatuses[0].containerID} "
                        + "{.status.containerStatuses[0].restartCount} {.status.phase}").stdout()
                .equals(before + " 0 Running"));
        assertThat(kubectl.run("exec", "steady", "--", "echo", "alive").assertSuccess().stdout()).isEqualTo("alive\n");
    }

    private static void create(String manifest) {
        kubectl.run(manifest, Map.of(), "create", "-f", "-").assertSuccess();
    }

    private static String waitingMessage(String pod) {
        return kubectl.run("get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].state.waiting.message}")
                .assertSuccess().stdout();
    }

    /** The pod's events as {@code fieldPath|type|reason|message} lines. */
    private static List<String> events(String pod) {
        String lines = kubectl.run("get", "events", "--field-selector", "involvedObject.name=" + pod, "-o",
                "jsonpath={range .items[*]}{.involvedObject.fieldPath}|{.type}|{.reason}|{.message}{\"\\n\"}{end}")
                .assertSuccess().stdout();
        return new ArrayList<>(lines.lines().toList());
    }

    /** A {@code kubectl get <kind> <name> --watch -o jsonpath=…} that keeps every line it prints. */
    private static final class Watch implements AutoCloseable {
        private final Process process;
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final Thread reader;

        private Watch(Process process) {
            this.process = process;
            this.reader = Thread.ofVirtual().start(() -> {
                try (var output = process.inputReader(StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = output.readLine()) != null) {
                        lines.add(line.trim());
                    }
                }
                catch (IOException e) {
                    // The watch was stopped.
                }
            });
        }

        /**
         * Watches one object through a list with a name field selector: kubectl watches a named object from
         * resourceVersion 0, that is from its state when the watch starts, so changes between its first GET and then
         * are lost; a list's watch starts at the list's resourceVersion and misses none.
         */
        static Watch of(String kind, String name, String jsonPath) throws IOException {
            return new Watch(new ProcessBuilder("kubectl", "--kubeconfig=" + server.kubeconfig(), "get", kind,
                    "--field-selector", "metadata.name=" + name, "--watch", "-o", "jsonpath=" + jsonPath + "{\"\\n\"}")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start());
        }

        /** The waiting reasons of the first container of the pod {@code name}, which need not exist yet. */
        static Watch waitingReasons(String name) throws IOException {
            return of("pod", name, "{.status.containerStatuses[0].state.waiting.reason}");
        }

        List<String> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            process.waitFor();
            reader.join(Duration.ofSeconds(5));
        }
    }
}
