package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code k4j server --simulated-nodes=3}: the nodes register and stay Ready with fresh Leases, pods bound to them run,
 * end and are deleted as on a kubelet, and a Node created later with KWOK's annotation is run too. No scheduler is
 * needed: the pods name their node.
 */
class SimulatedNodesIT {
    private static final String NAMESPACE = "simulated";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Two and a half lease renewals (10 s each) instead of upstream's 50 s, so that stopped nodes are noticed sooner. */
    static final String SHORT_NODE_MONITOR_GRACE_PERIOD = "--node-monitor-grace-period=25s";

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=3", SHORT_NODE_MONITOR_GRACE_PERIOD);
        client = server.client();
        createNamespace(client, NAMESPACE);
    }

    /** Creates {@code namespace} with its default ServiceAccount, which the ServiceAccount admission plugin needs. */
    static void createNamespace(KubernetesClient client, String namespace) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        // The serviceaccount controller may not have made it yet, so make it here unless it just did.
        try {
            client.serviceAccounts().inNamespace(namespace).resource(new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void threeNodesAreReadyWithFreshLeases() {
        List<String> names = List.of("k4j-sim-0", "k4j-sim-1", "k4j-sim-2");
        await().atMost(TIMEOUT).untilAsserted(() -> {
            for (String name : names) {
                assertThat(ready(client.nodes().withName(name).get())).as(name + " Ready").isTrue();
            }
        });
        Node node = client.nodes().withName("k4j-sim-1").get();
        assertThat(node.getMetadata().getLabels())
                .containsEntry("kubernetes.io/hostname", "k4j-sim-1")
                .containsEntry("kubernetes.io/os", "linux")
                .containsEntry("topology.kubernetes.io/zone", "zone-b")
                .containsKey("node.kubernetes.io/instance-type");
        assertThat(node.getStatus().getCapacity().get("cpu").toString()).isEqualTo("32");
        assertThat(node.getStatus().getAllocatable().get("pods").toString()).isEqualTo("110");
        assertThat(node.getStatus().getAddresses()).anyMatch(address -> address.getType().equals("InternalIP"));

        String table = server.kubectl().run("get", "nodes").assertSuccess().stdout();
        for (String name : names) {
            assertThat(table).containsPattern(name + "\\s+Ready\\s");
        }

        await().atMost(TIMEOUT).untilAsserted(() -> {
            for (String name : names) {
                Lease lease = client.leases().inNamespace("kube-node-lease").withName(name).get();
                assertThat(lease).as("lease of " + name).isNotNull();
                assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(name);
                assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
                assertThat(lease.getMetadata().getOwnerReferences()).anyMatch(owner -> owner.getKind().equals("Node") && owner.getName().equals(name));
                assertThat(renewTime(lease)).isAfter(Instant.now().minusSeconds(40));
            }
        });
        Instant firstRenewal = renewTime(client.leases().inNamespace("kube-node-lease").withName("k4j-sim-0").get());
        await("the lease is renewed again").atMost(TIMEOUT)
                .until(() -> renewTime(client.leases().inNamespace("kube-node-lease").withName("k4j-sim-0").get()).isAfter(firstRenewal));
    }

    @Test
    void podBoundToASimulatedNodeRunsAndIsDeleted() {
        client.pods().inNamespace(NAMESPACE).resource(pod("web", "k4j-sim-1", "Always", Map.of())).create();

        Pod running = awaitRunning(client, NAMESPACE, "web");
        Node node = client.nodes().withName("k4j-sim-1").get();
        String internalIp = node.getStatus().getAddresses().stream().filter(address -> address.getType().equals("InternalIP")).findFirst().orElseThrow().getAddress();
        assertThat(running.getStatus().getPodIP()).isNotEmpty().startsWith("10.42.");
        assertThat(running.getStatus().getHostIP()).isEqualTo(internalIp);
        assertThat(running.getStatus().getStartTime()).isNotEmpty();
        assertThat(running.getStatus().getQosClass()).isEqualTo("BestEffort");
        ContainerStatus container = running.getStatus().getContainerStatuses().get(0);
        assertThat(container.getReady()).isTrue();
        assertThat(container.getRestartCount()).isZero();
        assertThat(container.getState().getRunning()).isNotNull();
        assertThat(container.getImageID()).contains("@sha256:");
        assertThat(running.getStatus().getConditions())
                .anyMatch(condition -> condition.getType().equals("Ready") && condition.getStatus().equals("True"))
                .anyMatch(condition -> condition.getType().equals("PodScheduled") && condition.getStatus().equals("True"));

        String table = server.kubectl().run("get", "pods", "-n", NAMESPACE, "web").assertSuccess().stdout();
        assertThat(table).containsPattern("web\\s+1/1\\s+Running\\s+0\\s");

        server.kubectl().run("delete", "pod", "-n", NAMESPACE, "web", "--timeout=60s").assertSuccess();
        assertThat(client.pods().inNamespace(NAMESPACE).withName("web").get()).isNull();
    }

    @Test
    void podsThatEndSucceedOrFail() {
        client.pods().inNamespace(NAMESPACE).resource(pod("job-like", "k4j-sim-0", "Never", Map.of("k4j.io/simulated-run-seconds", "1"))).create();
        client.pods().inNamespace(NAMESPACE).resource(pod("failing", "k4j-sim-2", "Never",
                Map.of("k4j.io/simulated-run-seconds", "0", "k4j.io/simulated-exit-code", "3"))).create();

        Pod succeeded = await().atMost(TIMEOUT).until(() -> client.pods().inNamespace(NAMESPACE).withName("job-like").get(),
                pod -> "Succeeded".equals(pod.getStatus().getPhase()));
        assertThat(succeeded.getStatus().getContainerStatuses().get(0).getState().getTerminated().getExitCode()).isZero();
        assertThat(succeeded.getStatus().getContainerStatuses().get(0).getState().getTerminated().getReason()).isEqualTo("Completed");
        assertThat(succeeded.getStatus().getContainerStatuses().get(0).getState().getRunning()).isNull();

        Pod failed = await().atMost(TIMEOUT).until(() -> client.pods().inNamespace(NAMESPACE).withName("failing").get(),
                pod -> "Failed".equals(pod.getStatus().getPhase()));
        assertThat(failed.getStatus().getContainerStatuses().get(0).getState().getTerminated().getExitCode()).isEqualTo(3);
        assertThat(failed.getStatus().getContainerStatuses().get(0).getState().getTerminated().getReason()).isEqualTo("Error");

        String table = server.kubectl().run("get", "pods", "-n", NAMESPACE, "job-like", "failing").assertSuccess().stdout();
        assertThat(table).containsPattern("job-like\\s+0/1\\s+Completed\\s").containsPattern("failing\\s+0/1\\s+Error\\s");
    }

    @Test
    void nodeCreatedWithTheKwokAnnotationIsRunAndCanBeStopped() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("added-later")
                .withAnnotations(Map.of("kwok.x-k8s.io/node", "fake")).endMetadata().build()).create();

        await().atMost(TIMEOUT).until(() -> ready(client.nodes().withName("added-later").get()));
        Node node = client.nodes().withName("added-later").get();
        assertThat(node.getStatus().getCapacity()).containsKeys("cpu", "memory", "pods");
        assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isNotEmpty();
        await().atMost(TIMEOUT).until(() -> client.leases().inNamespace("kube-node-lease").withName("added-later").get() != null);

        client.pods().inNamespace(NAMESPACE).resource(pod("on-added", "added-later", "Always", Map.of())).create();
        await().atMost(TIMEOUT).until(() -> "Running".equals(client.pods().inNamespace(NAMESPACE).withName("on-added").get().getStatus().getPhase()));

        // fabric8's edit is locked to the resourceVersion it read, and the node's heartbeats race it: annotate as a user would.
        server.kubectl().run("annotate", "node", "added-later", "k4j.io/simulated-stopped=true").assertSuccess();
        // Without heartbeats the node lifecycle controller gives up on the node after its grace period.
        await("the stopped node turns NotReady").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1))
                .until(() -> !ready(client.nodes().withName("added-later").get()));
        // The controller taints the node in a pass of its own, after the condition.
        await("the stopped node is tainted unreachable").atMost(TIMEOUT).until(() -> client.nodes().withName("added-later").get().getSpec().getTaints()
                .stream().anyMatch(taint -> taint.getKey().equals("node.kubernetes.io/unreachable")));

        server.kubectl().run("annotate", "node", "added-later", "k4j.io/simulated-stopped-").assertSuccess();
        await("the node runs again").atMost(TIMEOUT).until(() -> ready(client.nodes().withName("added-later").get()));
        await("its pod is ready again").atMost(TIMEOUT).until(() -> client.pods().inNamespace(NAMESPACE).withName("on-added").get()
                .getStatus().getConditions().stream().anyMatch(condition -> condition.getType().equals("Ready") && condition.getStatus().equals("True")));
    }

    /** The pod once a simulated node runs it. */
    static Pod awaitRunning(KubernetesClient client, String namespace, String name) {
        return await(name + " running").atMost(TIMEOUT).until(() -> client.pods().inNamespace(namespace).withName(name).get(),
                pod -> pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase()));
    }

    static Pod pod(String name, String nodeName, String restartPolicy, Map<String, String> annotations) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withAnnotations(annotations).endMetadata()
                .withNewSpec()
                .withNodeName(nodeName)
                .withRestartPolicy(restartPolicy)
                .withTerminationGracePeriodSeconds(30L)
                .addNewContainer().withName("main").withImage("nginx").endContainer()
                .endSpec()
                .build();
    }

    private static boolean ready(Node node) {
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return false;
        }
        Optional<NodeCondition> ready = node.getStatus().getConditions().stream().filter(condition -> condition.getType().equals("Ready")).findFirst();
        return ready.isPresent() && ready.get().getStatus().equals("True");
    }

    private static Instant renewTime(Lease lease) {
        ZonedDateTime renewTime = lease.getSpec().getRenewTime();
        return renewTime.toInstant();
    }
}
