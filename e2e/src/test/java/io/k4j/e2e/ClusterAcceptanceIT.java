package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--simulated-nodes=3", SimulatedNodesIT.SHORT_NODE_MONITOR_GRACE_PERIOD);
        await().atMost(TIMEOUT).until(() -> kubectl("get", "nodes", "--no-headers").stdout().lines().filter(line -> line.contains(" Ready ")).count() == 3);
        // Controllers start once their caches have synced; the default ServiceAccount shows they run.
        await().atMost(TIMEOUT).until(() -> server.kubectl().run("get", "serviceaccount", "default").exitCode() == 0);
        // Started now and checked last (cronJobEveryMinuteCreatesJobs): the other checks take the minutes it needs.
        server.kubectl().run("""
                apiVersion: batch/v1
                kind: CronJob
                metadata: {name: minutely}
                spec:
                  schedule: "*/1 * * * *"
                  jobTemplate:
                    metadata: {labels: {app: minutely}}
                    spec:
                      template:
                        metadata:
                          annotations: {k4j.io/simulated-run-seconds: "1"}
                        spec:
                          restartPolicy: Never
                          containers: [{name: c, image: busybox}]
                """, Map.of(), "apply", "-f", "-").assertSuccess();
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

    @Test
    @Order(6)
    void noScheduleTaintKeepsPodsOffUnlessTolerated() throws IOException {
        kubectl("taint", "node", "k4j-sim-0", "dedicated=infra:NoSchedule");
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: untainted}
                spec:
                  replicas: 6
                  selector: {matchLabels: {app: untainted}}
                  template:
                    metadata: {labels: {app: untainted}}
                    spec:
                      containers: [{name: c, image: nginx}]
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: infra, labels: {app: infra}}
                spec:
                  nodeSelector: {kubernetes.io/hostname: k4j-sim-0}
                  tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]
                  containers: [{name: c, image: nginx}]
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=untainted") == 6 && runningPods("app=infra") == 1);
        assertThat(nodesOf("app=untainted")).hasSize(6).doesNotContain("k4j-sim-0");
        assertThat(nodesOf("app=infra")).containsExactly("k4j-sim-0");

        kubectl("taint", "node", "k4j-sim-0", "dedicated=infra:NoSchedule-");
        kubectl("delete", "deployment/untainted", "pod/infra", "--wait=false");
    }

    @Test
    @Order(7)
    void requiredAndPreferredNodeAffinityChooseTheNodes() throws IOException {
        kubectl("label", "node", "k4j-sim-0", "k4j-sim-1", "disk=ssd");
        kubectl("label", "node", "k4j-sim-2", "disk=hdd");
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: fast}
                spec:
                  replicas: 4
                  selector: {matchLabels: {app: fast}}
                  template:
                    metadata: {labels: {app: fast}}
                    spec:
                      affinity:
                        nodeAffinity:
                          requiredDuringSchedulingIgnoredDuringExecution:
                            nodeSelectorTerms:
                            - matchExpressions: [{key: disk, operator: In, values: [ssd]}]
                      containers: [{name: c, image: nginx}]
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: cheap, labels: {app: cheap}}
                spec:
                  affinity:
                    nodeAffinity:
                      preferredDuringSchedulingIgnoredDuringExecution:
                      - weight: 100
                        preference:
                          matchExpressions: [{key: disk, operator: In, values: [hdd]}]
                  containers: [{name: c, image: nginx}]
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=fast") == 4 && runningPods("app=cheap") == 1);
        assertThat(nodesOf("app=fast")).hasSize(4).doesNotContain("k4j-sim-2");
        assertThat(nodesOf("app=cheap")).containsExactly("k4j-sim-2");

        kubectl("delete", "deployment/fast", "pod/cheap", "--wait=false");
        kubectl("label", "node", "k4j-sim-0", "k4j-sim-1", "k4j-sim-2", "disk-");
    }

    @Test
    @Order(8)
    void requiredPodAntiAffinityPutsOneReplicaPerNodeAndLeavesTheFourthPending() throws IOException {
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: lonely}
                spec:
                  replicas: 4
                  selector: {matchLabels: {app: lonely}}
                  template:
                    metadata: {labels: {app: lonely}}
                    spec:
                      affinity:
                        podAntiAffinity:
                          requiredDuringSchedulingIgnoredDuringExecution:
                          - topologyKey: kubernetes.io/hostname
                            labelSelector: {matchLabels: {app: lonely}}
                      containers: [{name: c, image: nginx}]
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=lonely") == 3 && pods("app=lonely").size() == 4);
        assertThat(nodesOf("app=lonely")).containsExactlyInAnyOrder("k4j-sim-0", "k4j-sim-1", "k4j-sim-2");
        String pending = kubectl("get", "pods", "-l", "app=lonely", "--field-selector=status.phase=Pending", "-o", "jsonpath={.items[*].metadata.name}").stdout();
        assertThat(pending).startsWith("lonely-").doesNotContain(" ");
        await().atMost(TIMEOUT).until(() -> kubectl("get", "events", "--field-selector", "involvedObject.name=" + pending + ",reason=FailedScheduling", "-o",
                "jsonpath={.items[*].message}").stdout().contains("0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. "
                        + "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."));

        kubectl("delete", "deployment/lonely", "--wait=false");
    }

    @Test
    @Order(9)
    void topologySpreadBalancesReplicasOverZones() throws IOException {
        // Two zones of unequal size: spreading by node would put one of four replicas in zone-1, by zone two.
        kubectl("label", "node", "k4j-sim-0", "example.com/zone=zone-1");
        kubectl("label", "node", "k4j-sim-1", "k4j-sim-2", "example.com/zone=zone-2");
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: spread}
                spec:
                  replicas: 4
                  selector: {matchLabels: {app: spread}}
                  template:
                    metadata: {labels: {app: spread}}
                    spec:
                      topologySpreadConstraints:
                      - maxSkew: 1
                        topologyKey: example.com/zone
                        whenUnsatisfiable: DoNotSchedule
                        labelSelector: {matchLabels: {app: spread}}
                      containers: [{name: c, image: nginx}]
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=spread") == 4);
        assertThat(nodesOf("app=spread")).filteredOn("k4j-sim-0"::equals).hasSize(2);

        kubectl("delete", "deployment/spread", "--wait=false");
        kubectl("label", "node", "k4j-sim-0", "k4j-sim-1", "k4j-sim-2", "example.com/zone-");
    }

    @Test
    @Order(10)
    void highPriorityPodPreemptsALowerOneOnAFullCluster() throws IOException {
        // Each node (32 cpu) holds one filler of 20 cpu, so a second 20-cpu pod fits nowhere without preemption.
        apply("""
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: low}
                value: 100
                ---
                apiVersion: scheduling.k8s.io/v1
                kind: PriorityClass
                metadata: {name: high}
                value: 1000000
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: filler}
                spec:
                  replicas: 3
                  selector: {matchLabels: {app: filler}}
                  template:
                    metadata: {labels: {app: filler}}
                    spec:
                      priorityClassName: low
                      containers:
                      - name: c
                        image: nginx
                        resources: {requests: {cpu: "20"}}
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=filler") == 3);
        List<String> fillers = pods("app=filler");
        apply("""
                apiVersion: v1
                kind: Pod
                metadata: {name: vip, labels: {app: vip}}
                spec:
                  priorityClassName: high
                  containers:
                  - name: c
                    image: nginx
                    resources: {requests: {cpu: "20"}}
                """);
        await().atMost(TIMEOUT).until(() -> runningPods("app=vip") == 1);
        String node = kubectl("get", "pod", "vip", "-o", "jsonpath={.spec.nodeName}").stdout();
        assertThat(kubectl("get", "pod", "vip", "-o", "jsonpath={.status.nominatedNodeName}").stdout()).isEqualTo(node);
        String preempted = kubectl("get", "events", "--field-selector", "reason=Preempted", "-o", "jsonpath={.items[*].involvedObject.name}").stdout();
        assertThat(fillers).contains("pod/" + preempted);
        // The preempted filler's replacement finds no room: two fillers and the vip run.
        assertThat(runningPods("app=filler")).isEqualTo(2);

        kubectl("delete", "deployment/filler", "pod/vip", "priorityclass/low", "priorityclass/high", "--wait=false");
    }

    @Test
    @Order(11)
    void stoppedNodeTurnsNotReadyAndItsPodsAreRecreatedElsewhere() throws IOException {
        // Tolerating the node's NoExecute taints for 5 s (instead of the 300 s DefaultTolerationSeconds adds) and a
        // 25 s node monitor grace period (instead of 50 s) keep the wait short.
        apply("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: resilient}
                spec:
                  replicas: 3
                  selector: {matchLabels: {app: resilient}}
                  template:
                    metadata: {labels: {app: resilient}}
                    spec:
                      tolerations:
                      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 5}
                      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 5}
                      containers: [{name: c, image: nginx}]
                """);
        kubectl("rollout", "status", "deployment/resilient", "--timeout=180s");
        String stopped = nodesOf("app=resilient").getFirst();

        kubectl("annotate", "node", stopped, "k4j.io/simulated-stopped=true");
        await().atMost(TIMEOUT).until(() -> kubectl("get", "node", stopped, "--no-headers").stdout().contains(" NotReady "));
        await().atMost(TIMEOUT).until(() -> runningPods("app=resilient") == 3 && !nodesOf("app=resilient", "Running").contains(stopped));
        await().atMost(TIMEOUT).until(() -> "3".equals(kubectl("get", "deployment", "resilient", "-o", "jsonpath={.status.availableReplicas}").stdout()));
        // Nobody confirms the deletion on a dead node, so the evicted pod stays Terminating, as upstream.
        assertThat(kubectl("get", "pods", "-l", "app=resilient", "--no-headers").stdout()).contains("Terminating");

        // Back again, the node reports Ready and its kubelet finishes the evicted pod's deletion.
        kubectl("annotate", "node", stopped, "k4j.io/simulated-stopped-");
        await().atMost(TIMEOUT).until(() -> kubectl("get", "node", stopped, "--no-headers").stdout().contains(" Ready ")
                && pods("app=resilient").size() == 3);
        kubectl("delete", "deployment/resilient", "--wait=false");
    }

    @Test
    @Order(12)
    void cronJobEveryMinuteCreatesJobs() {
        // Created when the server started, so the minutes the other checks take count towards this one's wait.
        await().atMost(TIMEOUT).until(() -> kubectl("get", "jobs", "-l", "app=minutely", "-o", "jsonpath={.items[*].status.succeeded}").stdout()
                .split(" ").length >= 2);
        List<String> owners = Arrays.asList(kubectl("get", "jobs", "-l", "app=minutely", "-o", "jsonpath={.items[*].metadata.ownerReferences[0].name}")
                .stdout().split(" "));
        assertThat(owners).hasSizeGreaterThanOrEqualTo(2).containsOnly("minutely");
        assertThat(kubectl("get", "cronjob", "minutely", "-o", "jsonpath={.status.lastScheduleTime}").stdout()).isNotBlank();
    }

    private static long runningPods(String selector) {
        return kubectl("get", "pods", "-l", selector, "--no-headers").stdout().lines().filter(line -> line.contains(" Running ")).count();
    }

    /** The nodes of the pods the selector matches, one entry per pod, terminating pods left out. */
    private static List<String> nodesOf(String selector) {
        return kubectl("get", "pods", "-l", selector, "-o",
                "go-template={{range .items}}{{if not .metadata.deletionTimestamp}}{{with .spec.nodeName}}{{.}}{{\"\\n\"}}{{end}}{{end}}{{end}}")
                .stdout().lines().filter(line -> !line.isBlank()).toList();
    }

    /** The nodes of the non-terminating pods the selector matches that are in this phase. */
    private static List<String> nodesOf(String selector, String phase) {
        return kubectl("get", "pods", "-l", selector, "--field-selector=status.phase=" + phase, "-o",
                "go-template={{range .items}}{{if not .metadata.deletionTimestamp}}{{with .spec.nodeName}}{{.}}{{\"\\n\"}}{{end}}{{end}}{{end}}")
                .stdout().lines().filter(line -> !line.isBlank()).toList();
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
