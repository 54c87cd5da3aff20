package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code k4j agent} joins a control-plane-only {@code k4j server} on the same host as its only node: the node becomes
 * Ready, a pod scheduled there runs, and logs and exec reach it through the apiserver. A wrong token is refused with a
 * clear message. The agent stops cleanly last. Needs root and the node's Debian packages.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentIT {
    private static final String NODE_NAME = "k4j-agent-" + ProcessHandle.current().pid();
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: on-agent
            spec:
              terminationGracePeriodSeconds: 5
              containers:
              - name: c1
                image: busybox
                command: ["sh", "-c", "echo hello from the agent; exec sleep 3600"]
            """;

    private static RealNodeSlots.Slot slot;
    private static K4jServer server;
    private static K4jAgent agent;
    private static Kubectl kubectl;

    @BeforeAll
    static void start() {
        K4jServer.assumeRealNodePossible();
        slot = RealNodeSlots.take();
        Path base = Path.of("/tmp").resolve("k4j-agentit-" + ProcessHandle.current().pid());
        server = K4jServer.start(base.resolve("server"), "--cluster-cidr", slot.clusterCidr());
        kubectl = server.kubectl();
        agent = K4jAgent.start(server, slot, base.resolve("agent"), NODE_NAME);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (agent != null) {
                agent.close();
            }
            if (server != null) {
                server.close();
                new ProcessBuilder("rm", "-rf", server.dataDirectory().getParent().toString()).start().waitFor();
            }
        } finally {
            if (slot != null) {
                slot.removeIdleBridge();
                slot.close();
            }
        }
    }

    @Test
    @Order(1)
    void theAgentsNodeIsTheOnlyNodeAndRunsAPodReachedThroughTheApiserver() {
        await("node " + NODE_NAME + " Ready").atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            assertThat(agent.isAlive()).as("the agent runs; its log:%n%s", agent.log()).isTrue();
            return kubectl.run("get", "node", NODE_NAME, "-o", "jsonpath={.status.conditions[?(@.type=='Ready')].status}").stdout().equals("True");
        });
        assertThat(kubectl.run("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}").assertSuccess().stdout()).isEqualTo(NODE_NAME);

        kubectl.run(POD, Map.of(), "create", "-f", "-").assertSuccess();
        await("pod on-agent Running").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> kubectl.run("get", "pod",
                "on-agent", "-o", "jsonpath={.status.phase}").stdout().equals("Running"));

        assertThat(kubectl.run("get", "pod", "on-agent", "-o", "jsonpath={.spec.nodeName}").assertSuccess().stdout()).isEqualTo(NODE_NAME);
        String podIp = kubectl.run("get", "pod", "on-agent", "-o", "jsonpath={.status.podIP}").assertSuccess().stdout();
        assertThat(podIp).startsWith(slot.clusterCidr().substring(0, slot.clusterCidr().indexOf(".0.0/")) + ".");
        // Through the apiserver to the agent's kubelet server, which presents the serving certificate the join issued.
        await("logs of on-agent").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() ->
                kubectl.run("logs", "on-agent", "-c", "c1").stdout().equals("hello from the agent\n"));
        assertThat(kubectl.run("exec", "on-agent", "-c", "c1", "--", "hostname").assertSuccess().stdout()).isEqualTo("on-agent\n");

        kubectl.run("delete", "pod", "on-agent", "--wait=true", "--timeout=60s").assertSuccess();
    }

    @Test
    @Order(2)
    void theAgentRunsAsItsNodeAndTheNodeAuthorizerLimitsIt() {
        await("the agent's kubeconfig").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> Files.exists(agent.kubeletKubeconfig()));
        Kubectl asNode = new Kubectl(agent.kubeletKubeconfig());

        assertThat(asNode.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").assertSuccess().stdout())
                .isEqualTo("system:node:" + NODE_NAME);
        assertThat(asNode.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.groups}").assertSuccess().stdout()).contains("system:nodes");
        Kubectl.Result secrets = asNode.run("get", "secrets", "-n", "kube-system");
        assertThat(secrets.exitCode()).isNotZero();
        assertThat(secrets.stderr()).contains("forbidden");
        // NodeRestriction holds for the joined node as for the server's own.
        await("node " + NODE_NAME + " registered").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> kubectl.run("get", "node", NODE_NAME).exitCode() == 0);
        Kubectl.Result label = asNode.run("label", "node", NODE_NAME, "node-restriction.kubernetes.io/role=special");
        assertThat(label.exitCode()).isNotZero();
        assertThat(label.stderr()).contains("is not allowed to modify labels: node-restriction.kubernetes.io/role");
    }

    @Test
    @Order(3)
    void aWrongTokenIsRefusedWithAClearMessage() throws Exception {
        String token = Files.readString(server.dataDirectory().resolve("token")).strip();
        String wrong = token.substring(0, token.lastIndexOf(':') + 1) + "not-the-secret";

        K4jAgent.Exit exit = K4jAgent.runToExit(List.of("--server", "https://127.0.0.1:" + server.port(), "--token", wrong,
                "--data-dir", server.dataDirectory().getParent().resolve("refused").toString(), "--node-name", "refused"), Duration.ofMinutes(2));

        assertThat(exit.exitCode()).isNotZero();
        assertThat(exit.output()).contains("k4j agent: the server refused the join token (401 Unauthorized)");
        assertThat(kubectl.run("get", "node", "refused").exitCode()).isNotZero();
        assertThat(Files.readString(server.dataDirectory().resolve("server.log")))
                .contains("node join token in " + server.dataDirectory().resolve("token"), "k4j agent --server=https://127.0.0.1:" + server.port());
    }

    @Test
    @Order(4)
    void theAgentStopsCleanly() {
        assertThat(agent.stop(Duration.ofSeconds(60))).as("the agent ended; its log:%n%s", agent.log()).isTrue();

        assertThat(agent.log()).contains("shutting down");
        await("containerd and the registry of the agent stopped").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> agent.leftoverProcesses().isEmpty());
    }
}
