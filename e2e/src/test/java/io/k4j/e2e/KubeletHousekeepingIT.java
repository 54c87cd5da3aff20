package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.ContainerState;
import io.k4j.kubelet.cri.v1.ContainerStateValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The real node's housekeeping with real kubectl: static pods from {@code <data-dir>/agent/pod-manifests} with their
 * mirror pods, and eviction under memory pressure. The server's hard eviction threshold
 * ({@code memory.available<1000Gi}) is above what any machine here has, so the node is under memory pressure from its
 * start: static pods still run (they are critical), a BestEffort pod is refused at admission, and one that tolerates
 * the memory-pressure taint is admitted and then evicted. Needs root and the node's Debian packages.
 */
class KubeletHousekeepingIT {
    private static final String STATIC_POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: static-web
              namespace: kube-system
              labels:
                tier: control-plane
            spec:
              terminationGracePeriodSeconds: 1
              containers:
              - name: c1
                image: busybox
                command: ["sh", "-c", "echo %s; exec sleep 3600"]
            """;
    private static final String BEST_EFFORT_POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: %s
            spec:
              nodeName: %s
              terminationGracePeriodSeconds: 30
              %s
              containers:
              - name: c1
                image: busybox
                command: ["sleep", "3600"]
            """;

    private static K4jServer server;
    private static Kubectl kubectl;
    private static String node;

    @BeforeAll
    static void start() {
        K4jServer.assumeRealNodePossible();
        server = K4jServer.startWithNode(Path.of("/tmp").resolve("k4j-housekeeping-" + ProcessHandle.current().pid()),
                "--eviction-hard", "memory.available<1000Gi");
        kubectl = new Kubectl(server.kubeconfig());
        server.awaitNodeReady();
        node = kubectl.run("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}").assertSuccess().stdout();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            stopEveryPod();
            server.closeAndRemoveNode(Path.of("target", "KubeletHousekeepingIT-server.log"));
        }
    }

    @Test
    void aStaticPodRunsFromItsManifestWithAMirrorPodInTheApi() throws Exception {
        Path manifests = server.dataDirectory().resolve("agent/pod-manifests");
        Path manifest = manifests.resolve("static-web.yaml");
        Files.writeString(manifest, STATIC_POD.formatted("v1"));
        String mirror = "static-web-" + node;

        String first = awaitRunningMirror(mirror, "");
        String[] fields = first.split(" ");
        String hash = fields[1];
        String containerId = fields[2];
        String details = kubectl.run("get", "pod", "-n", "kube-system", mirror, "-o", "jsonpath="
                + "{.metadata.annotations.kubernetes\\.io/config\\.mirror} {.metadata.annotations.kubernetes\\.io/config\\.source} "
                + "{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller} "
                + "{.spec.nodeName} {.metadata.labels.tier}").assertSuccess().stdout();
        assertThat(details).isEqualTo(hash + " file Node/" + node + "/true " + node + " control-plane");
        // Logs come from the static pod through the kubelet server, found by the mirror pod's name.
        awaitLogs(mirror, "v1\n");

        // A deleted mirror pod comes back; the static pod keeps running, untouched.
        String firstMirrorUid = fields[0];
        kubectl.run("delete", "pod", "-n", "kube-system", mirror, "--wait=false").assertSuccess();
        String recreated = awaitRunningMirror(mirror, firstMirrorUid);
        assertThat(recreated.split(" ")[1]).isEqualTo(hash);
        assertThat(recreated.split(" ")[2]).isEqualTo(containerId);
        assertThat(kubectl.run("get", "pod", "-n", "kube-system", mirror, "-o",
                "jsonpath={.status.containerStatuses[0].restartCount}").assertSuccess().stdout()).isEqualTo("0");

        // A changed manifest is a new pod: the old one stops, the new one runs under a new mirror pod, which stays.
        Files.writeString(manifest, STATIC_POD.formatted("v2"));
        String[] second = new String[1];
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
            second[0] = kubectl.run("get", "pod", "-n", "kube-system", mirror, "-o", "jsonpath={.metadata.uid} "
                    + "{.metadata.annotations.kubernetes\\.io/config\\.hash} {.status.phase}").stdout();
            return second[0].endsWith(" Running") && !second[0].contains(" " + hash + " ");
        });
        awaitLogs(mirror, "v2\n");
        assertThat(runningContainersOf(mirror)).isEqualTo(1);
        assertThat(kubectl.run("get", "pod", "-n", "kube-system", mirror, "-o", "jsonpath={.metadata.uid}")
                .assertSuccess().stdout()).isEqualTo(second[0].split(" ")[0]);

        // A removed manifest stops the pod and deletes its mirror pod.
        Files.delete(manifest);
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "-n", "kube-system", mirror).stderr().contains("NotFound"));
        await().atMost(Duration.ofSeconds(30)).until(() -> runningContainersOf(mirror) == 0);
    }

    @Test
    void underMemoryPressureBestEffortPodsAreRefusedOrEvicted() {
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> kubectl.run("get", "node",
                node, "-o", "jsonpath={.status.conditions[?(@.type=='MemoryPressure')].status} "
                        + "{.status.conditions[?(@.type=='MemoryPressure')].reason}").stdout()
                .equals("True KubeletHasInsufficientMemory"));
        // The node lifecycle controller taints the node for the condition.
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> kubectl.run("get", "node",
                node, "-o", "jsonpath={.spec.taints[*].key}").stdout().contains("node.kubernetes.io/memory-pressure"));

        kubectl.run(BEST_EFFORT_POD.formatted("refused", node, ""), Map.of(), "create", "-f", "-").assertSuccess();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "refused", "-o", "jsonpath={.status.phase}/{.status.reason}").stdout().equals("Failed/Evicted"));
        assertThat(kubectl.run("get", "pod", "refused", "-o", "jsonpath={.status.message}").assertSuccess().stdout())
                .isEqualTo("The node had condition: [MemoryPressure]. ");

        String toleration = """
                tolerations:
                  - key: node.kubernetes.io/memory-pressure
                    operator: Exists
                    effect: NoSchedule""";
        kubectl.run(BEST_EFFORT_POD.formatted("evicted", node, toleration), Map.of(), "create", "-f", "-").assertSuccess();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "evicted", "-o", "jsonpath={.status.phase}/{.status.reason}").stdout().equals("Failed/Evicted"));
        String message = kubectl.run("get", "pod", "evicted", "-o", "jsonpath={.status.message}").assertSuccess().stdout();
        assertThat(message).matches("The node was low on resource: memory\\. Threshold quantity: 1000Gi, available: \\d+(Ki|Mi|Gi)?\\. .*");
        assertThat(kubectl.run("get", "pod", "evicted", "-o",
                "jsonpath={.status.conditions[?(@.type=='DisruptionTarget')].reason}").assertSuccess().stdout())
                .isEqualTo("TerminationByKubelet");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).until(() -> kubectl.run("get", "events",
                "--field-selector", "involvedObject.name=evicted,reason=Evicted", "-o", "jsonpath={.items[*].message}")
                .stdout().contains("The node was low on resource: memory."));
        // Its containers are stopped within the hard eviction's grace period, whatever the pod's own says.
        await().atMost(Duration.ofSeconds(30)).until(() -> runningContainersOf("evicted") == 0);
        assertThat(kubectl.run("get", "pod", "evicted", "-o",
                "jsonpath={.status.containerStatuses[0].state.terminated.reason}").assertSuccess().stdout()).isNotEmpty();
    }

    /** A closed server leaves its pods' containers running (the next start adopts them): stop them first. */
    private static void stopEveryPod() throws Exception {
        Path manifests = server.dataDirectory().resolve("agent/pod-manifests");
        if (Files.isDirectory(manifests)) {
            try (java.util.stream.Stream<Path> files = Files.list(manifests)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
        kubectl.run("delete", "pods", "--all", "--all-namespaces", "--wait=true", "--timeout=60s");
        try {
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> allContainers() == 0);
        }
        catch (org.awaitility.core.ConditionTimeoutException e) {
            System.err.println("KubeletHousekeepingIT: containers still left after deleting every pod");
        }
    }

    private static long allContainers() throws Exception {
        Path socket = server.dataDirectory().resolve("agent/containerd/containerd.sock");
        try (CriConnection connection = CriConnection.open(socket, CriTimeouts.DEFAULT)) {
            return connection.runtimeService().listContainers(ContainerFilter.getDefaultInstance()).size()
                    + connection.runtimeService().listPodSandbox(
                            io.k4j.kubelet.cri.v1.PodSandboxFilter.getDefaultInstance()).size();
        }
    }

    private static void awaitLogs(String pod, String expected) {
        Kubectl.Result[] last = new Kubectl.Result[1];
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                last[0] = kubectl.run("logs", "-n", "kube-system", pod);
                return last[0].stdout().equals(expected);
            });
        }
        catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("kubectl logs " + pod + " gave " + last[0], e);
        }
    }

    private static String awaitRunningMirror(String name, String previousUid) {
        String[] result = new String[1];
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
            String now = kubectl.run("get", "pod", "-n", "kube-system", name, "-o", "jsonpath={.metadata.uid} "
                    + "{.metadata.annotations.kubernetes\\.io/config\\.hash} {.status.containerStatuses[0].containerID} "
                    + "{.status.phase}").stdout();
            result[0] = now;
            return now.endsWith(" Running") && !now.startsWith(previousUid + " ") && now.split(" ").length == 4;
        });
        return result[0];
    }

    private static long runningContainersOf(String podName) throws Exception {
        Path socket = server.dataDirectory().resolve("agent/containerd/containerd.sock");
        try (CriConnection connection = CriConnection.open(socket, CriTimeouts.DEFAULT)) {
            return connection.runtimeService().listContainers(ContainerFilter.newBuilder()
                    .putLabelSelector("io.kubernetes.pod.name", podName)
                    .setState(ContainerStateValue.newBuilder().setState(ContainerState.CONTAINER_RUNNING))
                    .build()).size();
        }
    }
}
