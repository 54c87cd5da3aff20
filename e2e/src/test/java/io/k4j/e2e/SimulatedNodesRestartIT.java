package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A killed server's simulated nodes come back to the pods they ran as a kubelet does: the pods keep running as they were,
 * with no status written again, and their addresses are not given to new pods.
 */
class SimulatedNodesRestartIT {
    private static final String NAMESPACE = "simulated-restart";
    private static final String NODE = "k4j-sim-0";

    @TempDir
    static Path temporaryDirectory;

    @Test
    void runningPodsAreLeftAsTheyWereAfterAKill() throws IOException {
        try (K4jServer server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=1")) {
            List<Pod> before;
            try (KubernetesClient client = server.client()) {
                SimulatedNodesIT.createNamespace(client, NAMESPACE);
                List<String> names = IntStream.range(0, 3).mapToObj(index -> "before-" + index).toList();
                for (String name : names) {
                    client.pods().inNamespace(NAMESPACE).resource(SimulatedNodesIT.pod(name, NODE, "Always", Map.of())).create();
                }
                before = names.stream().map(name -> SimulatedNodesIT.awaitRunning(client, NAMESPACE, name)).toList();
            }

            server.kill();
            server.restart();

            try (KubernetesClient client = server.client()) {
                // The new pod reaches the simulator after the pods its first list brought, so once it runs they were
                // looked at.
                client.pods().inNamespace(NAMESPACE).resource(SimulatedNodesIT.pod("after", NODE, "Always", Map.of())).create();
                Pod after = SimulatedNodesIT.awaitRunning(client, NAMESPACE, "after");
                for (Pod pod : before) {
                    Pod now = client.pods().inNamespace(NAMESPACE).withName(pod.getMetadata().getName()).get();
                    assertThat(now.getMetadata().getResourceVersion()).as(pod.getMetadata().getName() + " unchanged")
                            .isEqualTo(pod.getMetadata().getResourceVersion());
                    assertThat(now.getStatus().getStartTime()).isEqualTo(pod.getStatus().getStartTime());
                }
                assertThat(after.getStatus().getPodIP()).isNotEmpty()
                        .isNotIn(before.stream().map(pod -> pod.getStatus().getPodIP()).toList());
            }
        }
    }
}
