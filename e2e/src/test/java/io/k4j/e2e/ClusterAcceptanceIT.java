package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3's acceptance with the real kubectl on {@code k4j server --simulated-nodes=3}: every part is the real one
 * (controller manager, scheduler, simulated kubelets), nothing is faked by the test.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAcceptanceIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;

    @BeforeAll
    static void start() {
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=3");
        await().atMost(TIMEOUT).until(() -> kubectl("get", "nodes", "--no-headers").stdout().lines().filter(line -> line.contains(" Ready ")).count() == 3);
        // Controllers start once their caches have synced; the default ServiceAccount shows they run.
        await().atMost(TIMEOUT).until(() -> server.kubectl().run("get", "serviceaccount", "default").exitCode() == 0);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void deploymentRunsScalesRollsAndRollsBack() {
        kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3");
        kubectl("rollout", "status", "deployment/web", "--timeout=180s");
        await().atMost(TIMEOUT).until(() -> runningPods("app=web") == 3);
        assertThat(kubectl("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.nodeName}").stdout()).contains("k4j-sim-");

        kubectl("set", "image", "deployment/web", "nginx=nginx:1.27");
        kubectl("rollout", "status", "deployment/web", "--timeout=180s");
        assertThat(kubectl("get", "rs", "-l", "app=web", "--no-headers").stdout().lines().count()).isEqualTo(2);
        kubectl("rollout", "undo", "deployment/web");
        kubectl("rollout", "status", "deployment/web", "--timeout=180s");
        assertThat(kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}").stdout()).isEqualTo("nginx");

        kubectl("scale", "deployment/web", "--replicas=10");
        await().atMost(TIMEOUT).until(() -> runningPods("app=web") == 10);
        kubectl("scale", "deployment/web", "--replicas=1");
        await().atMost(TIMEOUT).until(() -> pods("app=web").size() == 1);
    }

    @Test
    @Order(2)
    void deletingADeploymentCascadesUnlessOrphaned() {
        kubectl("delete", "deployment", "web", "--timeout=180s");
        await().atMost(TIMEOUT).until(() -> pods("app=web").isEmpty() && kubectl("get", "rs", "-l", "app=web", "-o", "name").stdout().isBlank());

        kubectl("create", "deployment", "kept", "--image=nginx", "--replicas=2");
        kubectl("rollout", "status", "deployment/kept", "--timeout=180s");
        kubectl("delete", "deployment", "kept", "--cascade=orphan", "--timeout=180s");
        assertThat(kubectl("get", "rs", "-l", "app=kept", "-o", "name").stdout()).isNotBlank();
        assertThat(pods("app=kept")).hasSize(2);
    }

    @Test
    @Order(3)
    void jobCompletesAndDaemonSetAndStatefulSetPlacePods() throws IOException {
        apply("""
                apiVersion: batch/v1
                kind: Job
                metadata: {name: five}
                spec:
                  completions: 5
                  parallelism: 2
                  template:
                    metadata:
                      annotations: {k4j.io/simulated-run-seconds: "1"}
                    spec:
                      restartPolicy: Never
                      containers: [{name: c, image: busybox}]
                ---
                apiVersion: apps/v1
                kind: DaemonSet
                metadata: {name: agent}
                spec:
                  selector: {matchLabels: {app: agent}}
                  template:
                    metadata: {labels: {app: agent}}
                    spec:
                      containers: [{name: c, image: busybox}]
                ---
                apiVersion: apps/v1
                kind: StatefulSet
                metadata: {name: db}
                spec:
                  serviceName: db
                  replicas: 3
                  selector: {matchLabels: {app: db}}
                  template:
                    metadata: {labels: {app: db}}
                    spec:
                      containers: [{name: c, image: nginx}]
                """);
        kubectl("wait", "--for=condition=complete", "job/five", "--timeout=180s");
        assertThat(kubectl("get", "job", "five", "-o", "jsonpath={.status.succeeded}").stdout()).isEqualTo("5");
        await().atMost(TIMEOUT).until(() -> runningPods("app=agent") == 3);
        assertThat(kubectl("get", "pods", "-l", "app=agent", "-o", "jsonpath={.items[*].spec.nodeName}").stdout().split(" "))
                .containsExactlyInAnyOrder("k4j-sim-0", "k4j-sim-1", "k4j-sim-2");
        kubectl("rollout", "status", "statefulset/db", "--timeout=180s");
        List<String> created = Arrays.stream(kubectl("get", "pods", "-l", "app=db", "--sort-by=.metadata.creationTimestamp", "-o",
                "jsonpath={.items[*].metadata.name}").stdout().split(" ")).toList();
        assertThat(created).containsExactly("db-0", "db-1", "db-2");
    }

    @Test
    @Order(4)
    void podTooBigForAnyNodeStaysPendingWithUpstreamsReason() throws IOException {
        apply("""
                apiVersion: v1
                kind: Pod
                metadata: {name: huge}
                spec:
                  containers:
                  - name: c
                    image: nginx
                    resources: {requests: {cpu: "1000"}}
                """);
        await().atMost(TIMEOUT).until(() -> kubectl("get", "events", "--field-selector", "involvedObject.name=huge,reason=FailedScheduling", "-o",
                "jsonpath={.items[*].message}").stdout().contains("0/3 nodes are available: 3 Insufficient cpu."));
        assertThat(kubectl("get", "pod", "huge", "-o", "jsonpath={.status.phase}").stdout()).isEqualTo("Pending");
    }

    @Test
    @Order(5)
    void deletingANamespaceEmptiesAndRemovesIt() {
        kubectl("create", "namespace", "doomed");
        kubectl("create", "configmap", "settings", "-n", "doomed", "--from-literal=a=b");
        kubectl("create", "deployment", "api", "-n", "doomed", "--image=nginx");
        kubectl("delete", "namespace", "doomed", "--timeout=180s");
        assertThat(server.kubectl().run("get", "namespace", "doomed").stderr()).contains("namespaces \"doomed\" not found");
    }

    private static long runningPods(String selector) {
        return kubectl("get", "pods", "-l", selector, "--no-headers").stdout().lines().filter(line -> line.contains(" Running ")).count();
    }

    private static List<String> pods(String selector) {
        return kubectl("get", "pods", "-l", selector, "-o", "name").stdout().lines().filter(line -> !line.isBlank()).toList();
    }

    private static void apply(String manifest) throws IOException {
        Path file = Files.createTempFile(temporaryDirectory, "manifest", ".yaml");
        Files.writeString(file, manifest);
        kubectl("apply", "-f", file.toString());
    }

    private static Kubectl.Result kubectl(String... arguments) {
        return server.kubectl().run(arguments).assertSuccess();
    }
}
