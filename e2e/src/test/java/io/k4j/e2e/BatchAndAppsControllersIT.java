package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.CronJobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Job, CronJob, DaemonSet and StatefulSet controllers of a started {@code k4j server}. There is no scheduler or
 * kubelet in this test, so the test plays the kubelet: it moves pods to Running/Ready/Succeeded through
 * {@code pods/status}, and it registers the Node objects itself.
 */
class BatchAndAppsControllersIT {
    /** Generous: on a loaded machine the controller manager may start a minute after the apiserver is ready. */
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;

    @BeforeAll
    static void start() throws IOException {
        // No kubelet heartbeats here: without these two the node controllers would taint the test's nodes unreachable.
        server = K4jServer.start(temporaryDirectory.resolve("data"), "--controllers=*,-node-lifecycle,-taint-eviction-controller");
        client = server.client();
        for (String name : List.of("worker-1", "worker-2")) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name).addToLabels("kubernetes.io/hostname", name).endMetadata()
                    .withNewSpec().endSpec().build()).create();
        }
        // A control-plane node that DaemonSet pods do not tolerate.
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("control").endMetadata()
                .withNewSpec().addNewTaint().withKey("node-role.kubernetes.io/control-plane").withEffect("NoSchedule").endTaint().endSpec().build()).create();
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
    void jobWithFiveCompletionsCompletes() {
        String namespace = namespace("batch-job");
        client.batch().v1().jobs().inNamespace(namespace).resource(new JobBuilder()
                .withNewMetadata().withName("pi").endMetadata()
                .withNewSpec().withCompletions(5).withParallelism(2)
                .withNewTemplate().withNewSpec().withRestartPolicy("Never").addNewContainer().withName("pi").withImage("perl").endContainer().endSpec().endTemplate()
                .endSpec().build()).create();

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200)).until(() -> {
            // The fake kubelet: every pending pod of the job runs to success.
            for (Pod pod : client.pods().inNamespace(namespace).withLabel("batch.kubernetes.io/job-name", "pi").list().getItems()) {
                if (pod.getStatus() == null || !"Succeeded".equals(pod.getStatus().getPhase())) {
                    assertThat(pod.getMetadata().getFinalizers()).contains("batch.kubernetes.io/job-tracking");
                    finish(pod, "Succeeded");
                }
            }
            return hasCondition(client.batch().v1().jobs().inNamespace(namespace).withName("pi").get(), "Complete");
        });

        Job job = client.batch().v1().jobs().inNamespace(namespace).withName("pi").get();
        assertThat(job.getStatus().getSucceeded()).isEqualTo(5);
        assertThat(job.getStatus().getActive()).isZero();
        assertThat(job.getStatus().getCompletionTime()).isNotNull();
        assertThat(job.getStatus().getConditions()).extracting(JobCondition::getType).contains("SuccessCriteriaMet", "Complete");
        List<Pod> pods = client.pods().inNamespace(namespace).withLabel("batch.kubernetes.io/job-name", "pi").list().getItems();
        assertThat(pods).hasSize(5).allSatisfy(pod -> assertThat(pod.getMetadata().getFinalizers()).doesNotContain("batch.kubernetes.io/job-tracking"));
        String describe = server.kubectl().run("get", "job", "pi", "-n", namespace).assertSuccess().stdout();
        assertThat(describe).contains("5/5");
    }

    @Test
    void cronJobEveryMinuteCreatesAJob() {
        String namespace = namespace("batch-cron");
        client.batch().v1().cronjobs().inNamespace(namespace).resource(new CronJobBuilder()
                .withNewMetadata().withName("hello").endMetadata()
                .withNewSpec().withSchedule("*/1 * * * *")
                .withNewJobTemplate().withNewSpec().withNewTemplate().withNewSpec().withRestartPolicy("OnFailure")
                .addNewContainer().withName("hello").withImage("busybox").endContainer().endSpec().endTemplate().endSpec().endJobTemplate()
                .endSpec().build()).create();

        // At most one minute until the next activation, plus the controller's reaction.
        Job job = await().atMost(TIMEOUT.plusSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> client.batch().v1().jobs().inNamespace(namespace).list().getItems().stream().findFirst(), Optional::isPresent)
                .orElseThrow();

        assertThat(job.getMetadata().getName()).matches("hello-[0-9]+");
        long minutes = Long.parseLong(job.getMetadata().getName().substring("hello-".length()));
        assertThat(Instant.ofEpochSecond(minutes * 60)).isBefore(Instant.now().plusSeconds(1));
        OwnerReference owner = job.getMetadata().getOwnerReferences().get(0);
        assertThat(owner.getKind()).isEqualTo("CronJob");
        assertThat(owner.getController()).isTrue();
        await().atMost(TIMEOUT).until(() -> {
            CronJob cronJob = client.batch().v1().cronjobs().inNamespace(namespace).withName("hello").get();
            return cronJob.getStatus() != null && cronJob.getStatus().getLastScheduleTime() != null && !cronJob.getStatus().getActive().isEmpty();
        });
    }

    @Test
    void invalidCronScheduleIsRejectedWith422() {
        String namespace = namespace("batch-invalid");
        Kubectl.Result result = server.kubectl().run("create", "cronjob", "bad", "-n", namespace, "--image=busybox", "--schedule=61 * * * *");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.stderr()).contains("CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61");
        try {
            client.batch().v1().cronjobs().inNamespace(namespace).resource(new CronJobBuilder().withNewMetadata().withName("bad").endMetadata()
                    .withNewSpec().withSchedule("not a schedule").withNewJobTemplate().withNewSpec().withNewTemplate().withNewSpec().withRestartPolicy("Never")
                    .addNewContainer().withName("c").withImage("busybox").endContainer().endSpec().endTemplate().endSpec().endJobTemplate().endSpec().build()).create();
            throw new AssertionError("an invalid schedule was accepted");
        } catch (KubernetesClientException e) {
            assertThat(e.getCode()).isEqualTo(422);
            assertThat(e.getStatus().getDetails().getCauses()).anySatisfy(cause -> assertThat(cause.getField()).isEqualTo("spec.schedule"));
        }
    }

    @Test
    void daemonSetRunsOnePodPerEligibleNode() {
        String namespace = namespace("apps-daemon");
        client.apps().daemonSets().inNamespace(namespace).resource(new DaemonSetBuilder()
                .withNewMetadata().withName("agent").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "agent").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "agent").endMetadata()
                .withNewSpec().addNewContainer().withName("agent").withImage("busybox").endContainer().endSpec().endTemplate()
                .endSpec().build()).create();

        List<Pod> pods = await().atMost(TIMEOUT).until(() -> client.pods().inNamespace(namespace).withLabel("app", "agent").list().getItems(), list -> list.size() == 2);

        Set<String> targets = pods.stream().map(BatchAndAppsControllersIT::affinityNode).collect(Collectors.toSet());
        assertThat(targets).containsExactlyInAnyOrder("worker-1", "worker-2");
        pods.forEach(pod -> assertThat(pod.getSpec().getTolerations()).anySatisfy(toleration -> assertThat(toleration.getKey()).isEqualTo("node.kubernetes.io/not-ready")));
        pods.forEach(BatchAndAppsControllersIT::markRunningAndReady);
        await().atMost(TIMEOUT).until(() -> {
            DaemonSet daemonSet = client.apps().daemonSets().inNamespace(namespace).withName("agent").get();
            return daemonSet.getStatus() != null && Integer.valueOf(2).equals(daemonSet.getStatus().getNumberReady())
                    && Integer.valueOf(2).equals(daemonSet.getStatus().getDesiredNumberScheduled())
                    && Integer.valueOf(2).equals(daemonSet.getStatus().getUpdatedNumberScheduled());
        });
        String history = server.kubectl().run("rollout", "history", "daemonset/agent", "-n", namespace).assertSuccess().stdout();
        assertThat(history).contains("REVISION").containsPattern("(?m)^1\\s");
    }

    @Test
    void statefulSetCreatesWebZeroOneTwoInOrder() {
        String namespace = namespace("apps-stateful");
        client.apps().statefulSets().inNamespace(namespace).resource(new StatefulSetBuilder()
                .withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withReplicas(3).withServiceName("nginx")
                .withNewSelector().addToMatchLabels("app", "nginx").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "nginx").endMetadata()
                .withNewSpec().addNewContainer().withName("nginx").withImage("nginx").addNewVolumeMount().withName("www").withMountPath("/usr/share/nginx/html")
                .endVolumeMount().endContainer().endSpec().endTemplate()
                .addNewVolumeClaimTemplate().withNewMetadata().withName("www").endMetadata()
                .withNewSpec().withAccessModes("ReadWriteOnce").withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec()
                .endVolumeClaimTemplate()
                .endSpec().build()).create();

        List<String> order = new ArrayList<>();
        for (int ordinal = 0; ordinal < 3; ordinal++) {
            String name = "web-" + ordinal;
            Pod pod = await().atMost(TIMEOUT).until(() -> client.pods().inNamespace(namespace).withName(name).get(), found -> found != null);
            order.add(name);
            // The next one must not exist before this one is Running and Ready.
            assertThat(client.pods().inNamespace(namespace).withName("web-" + (ordinal + 1)).get()).isNull();
            assertThat(pod.getSpec().getHostname()).isEqualTo(name);
            assertThat(pod.getMetadata().getLabels()).containsEntry("statefulset.kubernetes.io/pod-name", name)
                    .containsEntry("apps.kubernetes.io/pod-index", Integer.toString(ordinal)).containsKey("controller-revision-hash");
            assertThat(client.persistentVolumeClaims().inNamespace(namespace).withName("www-" + name).get()).isNotNull();
            markRunningAndReady(pod);
        }

        assertThat(order).containsExactly("web-0", "web-1", "web-2");
        await().atMost(TIMEOUT).until(() -> {
            StatefulSet set = client.apps().statefulSets().inNamespace(namespace).withName("web").get();
            return set.getStatus() != null && Integer.valueOf(3).equals(set.getStatus().getReadyReplicas())
                    && set.getStatus().getCurrentRevision() != null && set.getStatus().getCurrentRevision().equals(set.getStatus().getUpdateRevision());
        });
    }

    private static String namespace(String name) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        // Pods need the namespace's default ServiceAccount; do not wait for the ServiceAccount controller to add it.
        try {
            client.serviceAccounts().inNamespace(name).resource(new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build()).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
        return name;
    }

    private static boolean hasCondition(Job job, String type) {
        return job != null && job.getStatus() != null && job.getStatus().getConditions() != null
                && job.getStatus().getConditions().stream().anyMatch(condition -> type.equals(condition.getType()) && "True".equals(condition.getStatus()));
    }

    private static String affinityNode(Pod pod) {
        return pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms().get(0)
                .getMatchFields().get(0).getValues().get(0);
    }

    /** What a kubelet reports for a pod whose containers exited: the phase and a terminated state per container. */
    private static void finish(Pod pod, String phase) {
        String now = Instant.now().toString();
        Pod updated = new PodBuilder(pod).editOrNewStatus().withPhase(phase)
                .withContainerStatuses(new ContainerStatusBuilder().withName(pod.getSpec().getContainers().get(0).getName()).withImage("perl")
                        .withImageID("").withReady(false).withRestartCount(0)
                        .withNewState().withNewTerminated().withExitCode("Succeeded".equals(phase) ? 0 : 1).withReason("Completed").withFinishedAt(now)
                        .withStartedAt(now).endTerminated().endState().build())
                .endStatus().build();
        try {
            client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(updated).updateStatus();
        } catch (KubernetesClientException e) {
            // A conflict with the controller's own pod update: the next poll retries with the fresh pod.
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    private static void markRunningAndReady(Pod pod) {
        await().atMost(TIMEOUT).ignoreException(KubernetesClientException.class).until(() -> {
            Pod fresh = client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).get();
            String now = Instant.now().toString();
            Pod running = new PodBuilder(fresh).editOrNewStatus().withPhase("Running").withStartTime(now)
                    .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").withLastTransitionTime(now).build())
                    .endStatus().build();
            client.pods().inNamespace(fresh.getMetadata().getNamespace()).resource(running).updateStatus();
            return true;
        });
    }
}
