package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment, replicaset and replicationcontroller controllers inside a started {@code k4j server}, driven by the
 * real kubectl. There is no scheduler or kubelet here, so a {@link FakeKubelet} marks pods Running and Ready.
 */
class DeploymentControllersIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
        client = server.client();
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
    void deploymentRollsOutUpdatesAndRollsBack() {
        String namespace = namespace("rollout");
        try (FakeKubelet kubelet = new FakeKubelet(client, namespace)) {
            kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3", "-n", namespace);
            await().atMost(TIMEOUT).untilAsserted(() -> {
                assertThat(replicaSets(namespace)).hasSize(1);
                assertThat(pods(namespace)).hasSize(3);
            });
            ReplicaSet first = replicaSets(namespace).get(0);
            assertThat(first.getMetadata().getName()).matches("web-[bcdfghjklmnpqrstvwxz2456789]+");
            assertThat(pods(namespace)).allSatisfy(pod -> assertThat(controllerOf(pod).getName()).isEqualTo(first.getMetadata().getName()));

            assertThat(kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s").stdout())
                    .contains("deployment \"web\" successfully rolled out");
            assertThat(kubectl("get", "deployment", "web", "-n", namespace).stdout()).containsPattern("web\\s+3/3\\s+3\\s+3");

            kubectl("set", "image", "deployment/web", "nginx=nginx:1.27", "-n", namespace);
            assertThat(kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s").stdout())
                    .contains("deployment \"web\" successfully rolled out");
            await().atMost(TIMEOUT).untilAsserted(() -> {
                assertThat(replicaSets(namespace)).hasSize(2);
                assertThat(replicaSet(namespace, first.getMetadata().getName()).getSpec().getReplicas()).isZero();
                assertThat(pods(namespace)).hasSize(3).allSatisfy(pod -> assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx:1.27"));
            });

            String history = kubectl("rollout", "history", "deployment/web", "-n", namespace).stdout();
            assertThat(history).contains("REVISION").containsPattern("(?m)^1\\s").containsPattern("(?m)^2\\s");

            kubectl("rollout", "undo", "deployment/web", "-n", namespace);
            assertThat(kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s").stdout())
                    .contains("successfully rolled out");
            await().atMost(TIMEOUT).untilAsserted(() -> {
                ReplicaSet reused = replicaSet(namespace, first.getMetadata().getName());
                assertThat(reused.getSpec().getReplicas()).isEqualTo(3);
                assertThat(reused.getMetadata().getAnnotations())
                        .containsEntry("deployment.kubernetes.io/revision", "3")
                        .containsEntry("deployment.kubernetes.io/revision-history", "1");
                assertThat(pods(namespace)).hasSize(3).allSatisfy(pod -> assertThat(pod.getSpec().getContainers().get(0).getImage()).isEqualTo("nginx"));
            });
            assertThat(kubectl("rollout", "history", "deployment/web", "-n", namespace).stdout()).containsPattern("(?m)^2\\s").containsPattern("(?m)^3\\s");

            String events = kubectl("get", "events", "-n", namespace, "--field-selector", "involvedObject.kind=Deployment").stdout();
            assertThat(events).contains("ScalingReplicaSet").contains("Scaled up replica set " + first.getMetadata().getName() + " to 3");
        }
    }

    @Test
    void deploymentScalesUpAndDown() {
        String namespace = namespace("scaling");
        try (FakeKubelet kubelet = new FakeKubelet(client, namespace)) {
            kubectl("create", "deployment", "web", "--image=nginx", "--replicas=1", "-n", namespace);
            kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s");

            kubectl("scale", "deployment/web", "--replicas=10", "-n", namespace);
            await().atMost(TIMEOUT).untilAsserted(() -> {
                assertThat(pods(namespace)).hasSize(10);
                assertThat(deployment(namespace, "web").getStatus().getAvailableReplicas()).isEqualTo(10);
            });

            kubectl("scale", "deployment/web", "--replicas=1", "-n", namespace);
            await().atMost(TIMEOUT).untilAsserted(() -> {
                assertThat(pods(namespace)).hasSize(1);
                Deployment deployment = deployment(namespace, "web");
                assertThat(deployment.getStatus().getReplicas()).isEqualTo(1);
                assertThat(deployment.getStatus().getAvailableReplicas()).isEqualTo(1);
            });
            assertThat(replicaSets(namespace)).hasSize(1);
        }
    }

    @Test
    void pausedDeploymentWaitsForResumeAndRestartRollsANewReplicaSet() {
        String namespace = namespace("paused");
        try (FakeKubelet kubelet = new FakeKubelet(client, namespace)) {
            kubectl("create", "deployment", "web", "--image=nginx", "--replicas=2", "-n", namespace);
            kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s");

            kubectl("rollout", "pause", "deployment/web", "-n", namespace);
            kubectl("set", "image", "deployment/web", "nginx=nginx:1.27", "-n", namespace);
            await().atMost(TIMEOUT).untilAsserted(() -> {
                Deployment deployment = deployment(namespace, "web");
                assertThat(deployment.getStatus().getObservedGeneration()).isEqualTo(deployment.getMetadata().getGeneration());
                assertThat(deployment.getStatus().getConditions())
                        .anySatisfy(condition -> assertThat(condition.getReason()).isEqualTo("DeploymentPaused"));
            });
            assertThat(replicaSets(namespace)).hasSize(1);

            kubectl("rollout", "resume", "deployment/web", "-n", namespace);
            kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s");
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(replicaSets(namespace)).hasSize(2));

            kubectl("rollout", "restart", "deployment/web", "-n", namespace);
            kubectl("rollout", "status", "deployment/web", "-n", namespace, "--timeout=60s");
            await().atMost(TIMEOUT).untilAsserted(() -> {
                List<ReplicaSet> replicaSets = replicaSets(namespace);
                assertThat(replicaSets).hasSize(3);
                ReplicaSet newest = replicaSets.stream()
                        .max(Comparator.comparing(replicaSet -> Long.parseLong(replicaSet.getMetadata().getAnnotations().get("deployment.kubernetes.io/revision"))))
                        .orElseThrow();
                assertThat(newest.getSpec().getTemplate().getMetadata().getAnnotations()).containsKey("kubectl.kubernetes.io/restartedAt");
                assertThat(newest.getSpec().getReplicas()).isEqualTo(2);
                assertThat(pods(namespace)).hasSize(2).allSatisfy(pod -> assertThat(controllerOf(pod).getName()).isEqualTo(newest.getMetadata().getName()));
            });
        }
    }

    @Test
    void replicationControllerKeepsItsReplicasAndAdoptsOrphans() {
        String namespace = namespace("legacy");
        kubectlWithInput("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: orphan
                  labels: {app: legacy}
                spec:
                  containers:
                  - {name: c, image: nginx}
                """, "apply", "-n", namespace, "-f", "-");
        kubectlWithInput("""
                apiVersion: v1
                kind: ReplicationController
                metadata:
                  name: legacy
                spec:
                  replicas: 3
                  selector: {app: legacy}
                  template:
                    metadata:
                      labels: {app: legacy}
                    spec:
                      containers:
                      - {name: c, image: nginx}
                """, "apply", "-n", namespace, "-f", "-");
        await().atMost(TIMEOUT).untilAsserted(() -> {
            List<Pod> pods = pods(namespace);
            assertThat(pods).hasSize(3).allSatisfy(pod -> {
                OwnerReference owner = controllerOf(pod);
                assertThat(owner.getKind()).isEqualTo("ReplicationController");
                assertThat(owner.getName()).isEqualTo("legacy");
            });
            assertThat(pods).anySatisfy(pod -> assertThat(pod.getMetadata().getName()).isEqualTo("orphan"));
            ReplicationController rc = client.replicationControllers().inNamespace(namespace).withName("legacy").get();
            assertThat(rc.getStatus().getReplicas()).isEqualTo(3);
            assertThat(rc.getStatus().getObservedGeneration()).isEqualTo(1L);
        });

        kubectl("scale", "rc/legacy", "--replicas=1", "-n", namespace);
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(pods(namespace)).hasSize(1));
    }

    @Test
    void replicaSetReportsCreateFailuresFromAQuota() {
        String namespace = namespace("quota");
        kubectl("create", "quota", "pods", "--hard=pods=2", "-n", namespace);
        kubectlWithInput("""
                apiVersion: apps/v1
                kind: ReplicaSet
                metadata:
                  name: capped
                spec:
                  replicas: 4
                  selector:
                    matchLabels: {app: capped}
                  template:
                    metadata:
                      labels: {app: capped}
                    spec:
                      containers:
                      - {name: c, image: nginx}
                """, "apply", "-n", namespace, "-f", "-");
        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(pods(namespace)).hasSize(2);
            ReplicaSet replicaSet = replicaSet(namespace, "capped");
            assertThat(replicaSet.getStatus()).isNotNull();
            assertThat(replicaSet.getStatus().getConditions()).singleElement().satisfies(condition -> {
                assertThat(condition.getType()).isEqualTo("ReplicaFailure");
                assertThat(condition.getReason()).isEqualTo("FailedCreate");
                assertThat(condition.getMessage()).contains("exceeded quota");
            });
        });
        assertThat(kubectl("get", "events", "-n", namespace, "--field-selector", "reason=FailedCreate").stdout()).contains("exceeded quota");
    }

    @Test
    void rejectsBadDeploymentsWithFieldCauses() {
        String namespace = namespace("invalid");
        Kubectl.Result mismatch = server.kubectl().run("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: bad
                spec:
                  selector:
                    matchLabels: {app: one}
                  template:
                    metadata:
                      labels: {app: two}
                    spec:
                      containers:
                      - {name: c, image: nginx}
                """, java.util.Map.of(), "apply", "-n", namespace, "-f", "-");
        assertThat(mismatch.exitCode()).isNotZero();
        assertThat(mismatch.stderr()).contains("The Deployment \"bad\" is invalid")
                .contains("spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"two\"}: `selector` does not match template `labels`");

        Kubectl.Result negative = server.kubectl().run("create", "deployment", "negative", "--image=nginx", "--replicas=-1", "-n", namespace);
        assertThat(negative.exitCode()).isNotZero();
        assertThat(negative.stderr()).contains("spec.replicas: Invalid value: -1: must be greater than or equal to 0");

        kubectl("create", "deployment", "fixed", "--image=nginx", "-n", namespace);
        Kubectl.Result immutable = server.kubectl().run("patch", "deployment", "fixed", "-n", namespace, "--type=merge",
                "-p", "{\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"other\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"other\"}}}}}");
        assertThat(immutable.exitCode()).isNotZero();
        assertThat(immutable.stderr()).contains("spec.selector: Invalid value:").contains("field is immutable");
    }

    private static String namespace(String name) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        // Pods need the namespace's default service account (ServiceAccount admission); no serviceaccount controller
        // may run beside these controllers, so make sure it exists.
        await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
            if (client.serviceAccounts().inNamespace(name).withName("default").get() == null) {
                client.serviceAccounts().inNamespace(name).resource(new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
            }
            return true;
        });
        return name;
    }

    private static Kubectl.Result kubectl(String... arguments) {
        return server.kubectl().run(arguments).assertSuccess();
    }

    private static Kubectl.Result kubectlWithInput(String stdin, String... arguments) {
        return server.kubectl().run(stdin, java.util.Map.of(), arguments).assertSuccess();
    }

    private static List<ReplicaSet> replicaSets(String namespace) {
        return client.apps().replicaSets().inNamespace(namespace).list().getItems();
    }

    private static ReplicaSet replicaSet(String namespace, String name) {
        return client.apps().replicaSets().inNamespace(namespace).withName(name).get();
    }

    private static Deployment deployment(String namespace, String name) {
        return client.apps().deployments().inNamespace(namespace).withName(name).get();
    }

    /** Pods that are not being deleted. */
    private static List<Pod> pods(String namespace) {
        return client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static OwnerReference controllerOf(Pod pod) {
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(reference -> Boolean.TRUE.equals(reference.getController()))
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow(() -> new AssertionError("pod " + pod.getMetadata().getName() + " has no controller"));
    }
}
