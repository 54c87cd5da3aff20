package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A restarted server's controller manager picks up the cluster as it is: it neither duplicates nor loses pods. */
class ControllerManagerRestartIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String NAMESPACE = "restart";

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;

    @BeforeAll
    static void start() {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void restartedControllersKeepTheExistingPods() throws IOException {
        Set<String> before;
        try (KubernetesClient client = client(); FakeKubelet kubelet = new FakeKubelet(client, NAMESPACE)) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
            await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
                if (client.serviceAccounts().inNamespace(NAMESPACE).withName("default").get() == null) {
                    client.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
                }
                return true;
            });
            server.kubectl().run("create", "deployment", "web", "--image=nginx", "--replicas=3", "-n", NAMESPACE).assertSuccess();
            server.kubectl().run("rollout", "status", "deployment/web", "-n", NAMESPACE, "--timeout=90s").assertSuccess();
            before = names(pods(client));
            assertThat(before).hasSize(3);
        }

        server.restart();

        try (KubernetesClient client = client(); FakeKubelet kubelet = new FakeKubelet(client, NAMESPACE)) {
            server.kubectl().run("scale", "deployment/web", "--replicas=4", "-n", NAMESPACE).assertSuccess();
            await().atMost(TIMEOUT).untilAsserted(() -> {
                List<Pod> pods = pods(client);
                assertThat(pods).hasSize(4);
                assertThat(names(pods)).containsAll(before);
                assertThat(client.apps().replicaSets().inNamespace(NAMESPACE).list().getItems()).hasSize(1);
            });
            server.kubectl().run("rollout", "status", "deployment/web", "-n", NAMESPACE, "--timeout=90s").assertSuccess();
        }
    }

    private static KubernetesClient client() throws IOException {
        return server.client();
    }

    private static List<Pod> pods(KubernetesClient client) {
        return client.pods().inNamespace(NAMESPACE).list().getItems().stream().filter(pod -> pod.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static Set<String> names(List<Pod> pods) {
        return pods.stream().map(pod -> pod.getMetadata().getName()).collect(Collectors.toSet());
    }
}
