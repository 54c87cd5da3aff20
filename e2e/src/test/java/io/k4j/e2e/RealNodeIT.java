package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.cri.v1.PodSandboxFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code k4j server} with its real node: k4j's own containerd, the kubelet over CRI, pods with their own IPs, and
 * {@code kubectl delete pod} removing the pod's containers and sandbox. Needs root and the node's Debian packages.
 */
class RealNodeIT {
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: hello
            spec:
              terminationGracePeriodSeconds: 5
              containers:
              - name: c1
                image: busybox
                command: ["sh", "-c", "echo hello from k4j; exec sleep 3600"]
            """;

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static Kubectl kubectl;

    @BeforeAll
    static void start() {
        assumeTrue("root".equals(System.getProperty("user.name")), "a real node needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/containerd")), "containerd is not installed");
        server = K4jServer.startWithNode(Path.of("/tmp").resolve("k4j-realnode-" + ProcessHandle.current().pid()));
        kubectl = new Kubectl(server.kubeconfig());
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
            // A killed server leaves what it started in sessions of their own (registry, containerd) to the next
            // start; stop whatever of this test's data directory is still running.
            String directory = server.dataDirectory().toString();
            ProcessHandle.allProcesses()
                    .filter(process -> process.info().commandLine().orElse("").contains(directory))
                    .forEach(ProcessHandle::destroy);
            new ProcessBuilder("rm", "-rf", server.dataDirectory().toString()).start().waitFor();
            removeIdleBridge();
        }
    }

    @Test
    void aKilledServerComesBackToItsPodsWithoutRestartingThem() {
        awaitNodeReady();
        kubectl.run(POD.replace("name: hello", "name: survivor"), java.util.Map.of(), "create", "-f", "-").assertSuccess();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "survivor", "-o", "jsonpath={.status.phase}").stdout().equals("Running"));
        String before = kubectl.run("get", "pod", "survivor", "-o",
                "jsonpath={.status.podIP} {.status.containerStatuses[0].containerID}").assertSuccess().stdout();

        String node = kubectl.run("get", "nodes", "-o", "jsonpath={.items[0].metadata.name}").assertSuccess().stdout();
        server.kill();
        java.time.Instant restarted = java.time.Instant.now();
        server.restart();
        // The new kubelet runs once it renewed the node's Lease.
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            String renewed = kubectl.run("get", "lease", "-n", "kube-node-lease", node, "-o",
                    "jsonpath={.spec.renewTime}").stdout();
            return !renewed.isEmpty() && java.time.Instant.parse(renewed).isAfter(restarted);
        });

        // The restarted kubelet writes the status again only if something changed: it must stay the same.
        await().during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(30)).until(() -> kubectl.run("get", "pod",
                "survivor", "-o", "jsonpath={.status.podIP} {.status.containerStatuses[0].containerID} "
                        + "{.status.containerStatuses[0].restartCount} {.status.phase}").stdout()
                .equals(before + " 0 Running"));
        kubectl.run("delete", "pod", "survivor", "--wait=true", "--timeout=60s").assertSuccess();
    }

    private static void awaitNodeReady() {
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> kubectl.run("get", "nodes",
                "-o", "jsonpath={.items[*].status.conditions[?(@.type=='Ready')].status}").stdout().contains("True"));
    }

    /** Deletes the node's bridge unless pods (of another test run on this machine) are still attached to it. */
    private static void removeIdleBridge() throws Exception {
        Process attached = new ProcessBuilder("ip", "-o", "link", "show", "master", server.cniBridge()).start();
        String ports = new String(attached.getInputStream().readAllBytes()).trim();
        if (attached.waitFor() == 0 && ports.isEmpty()) {
            new ProcessBuilder("ip", "link", "delete", server.cniBridge()).start().waitFor();
        }
    }

    @Test
    void aPodRunsWithItsOwnIpAndIsRemovedOnDelete() throws Exception {
        awaitNodeReady();

        kubectl.run(POD, java.util.Map.of(), "create", "-f", "-").assertSuccess();

        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "hello", "-o", "jsonpath={.status.phase}").stdout().equals("Running"));
        String podIp = kubectl.run("get", "pod", "hello", "-o", "jsonpath={.status.podIP}").assertSuccess().stdout();
        assertThat(podIp).startsWith(server.clusterCidr().substring(0, server.clusterCidr().indexOf(".0.0/")) + ".");
        assertThat(kubectl.run("get", "pod", "hello").assertSuccess().stdout()).contains("1/1", "Running");
        // Through the apiserver's proxy to this node's kubelet server, which reads the kubelet's log layout.
        assertThat(kubectl.run("logs", "hello", "-c", "c1").assertSuccess().stdout()).isEqualTo("hello from k4j\n");
        assertThat(kubectl.run("exec", "hello", "-c", "c1", "--", "hostname").assertSuccess().stdout()).isEqualTo("hello\n");

        kubectl.run("delete", "pod", "hello", "--wait=true", "--timeout=60s").assertSuccess();

        Path socket = server.dataDirectory().resolve("agent/containerd/containerd.sock");
        try (CriConnection connection = CriConnection.open(socket, CriTimeouts.DEFAULT)) {
            assertThat(connection.runtimeService().listContainers(ContainerFilter.getDefaultInstance())).isEmpty();
            assertThat(connection.runtimeService().listPodSandbox(PodSandboxFilter.getDefaultInstance())).isEmpty();
        }
    }
}
