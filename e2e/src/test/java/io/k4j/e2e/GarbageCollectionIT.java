package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The garbage collector, namespace, serviceaccount, root CA publisher and resourcequota controllers inside a started
 * {@code k4j server}, driven by the real kubectl. Owned pods are made by hand (with owner references that are not
 * controller references, so no ReplicaSet controller acts on them).
 */
class GarbageCollectionIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** /readyz covers the apiserver only; the controller manager still has to win its lease and sync its caches. */
    private static final Duration CONTROLLERS_STARTED = Duration.ofMinutes(3);

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient client;
    private static Kubectl kubectl;

    @BeforeAll
    static void start() throws IOException {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
        client = server.client();
        kubectl = server.kubectl();
        kubectl.run("create", "namespace", "warm-up").assertSuccess();
        await().atMost(CONTROLLERS_STARTED).until(() -> client.serviceAccounts().inNamespace("warm-up").withName("default").get() != null);
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
    void deletingAReplicaSetDeletesItsPodsInTheBackground() {
        ReplicaSet owner = replicaSet("background");
        createPods(owner, "background", 3);

        kubectl.run("delete", "replicaset", "background", "-n", "default").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(podsOf("background")).isEmpty());
    }

    @Test
    void foregroundDeletionWaitsForBlockingPodsThenDeletesTheOwner() {
        ReplicaSet owner = replicaSet("foreground");
        createPods(owner, "foreground", 2);
        // One pod is held by a finalizer: the owner must wait for it.
        // A merge patch, not an edit: the scheduler writes these (unschedulable) pods' status meanwhile.
        client.pods().inNamespace("default").withName("foreground-0")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":[\"example.com/hold\"]}}");

        kubectl.run("delete", "replicaset", "foreground", "-n", "default", "--cascade=foreground", "--wait=false").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(client.pods().inNamespace("default").withName("foreground-1").get()).isNull();
            assertThat(client.pods().inNamespace("default").withName("foreground-0").get().getMetadata().getDeletionTimestamp()).isNotNull();
        });
        ReplicaSet waiting = client.apps().replicaSets().inNamespace("default").withName("foreground").get();
        assertThat(waiting).isNotNull();
        assertThat(waiting.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(waiting.getMetadata().getFinalizers()).contains("foregroundDeletion");

        client.pods().inNamespace("default").withName("foreground-0")
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(client.apps().replicaSets().inNamespace("default").withName("foreground").get()).isNull());
        assertThat(podsOf("foreground")).isEmpty();
    }

    @Test
    void kubectlForegroundDeletionReturnsOnceThePodsAndTheOwnerAreGone() {
        ReplicaSet owner = replicaSet("waited");
        createPods(owner, "waited", 2);

        kubectl.run("delete", "replicaset", "waited", "-n", "default", "--cascade=foreground").assertSuccess();

        assertThat(client.apps().replicaSets().inNamespace("default").withName("waited").get()).isNull();
        assertThat(podsOf("waited")).isEmpty();
    }

    @Test
    void orphanDeletionKeepsThePodsWithoutOwnerReferences() {
        ReplicaSet owner = replicaSet("orphan");
        createPods(owner, "orphan", 2);

        kubectl.run("delete", "replicaset", "orphan", "-n", "default", "--cascade=orphan").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(client.apps().replicaSets().inNamespace("default").withName("orphan").get()).isNull());
        List<Pod> pods = podsOf("orphan");
        assertThat(pods).hasSize(2);
        assertThat(pods).allSatisfy(pod -> assertThat(pod.getMetadata().getOwnerReferences()).isNullOrEmpty());
    }

    @Test
    void deletingANamespaceEmptiesAndRemovesIt() {
        kubectl.run("create", "namespace", "doomed").assertSuccess();
        kubectl.run("create", "configmap", "settings", "-n", "doomed", "--from-literal=a=b").assertSuccess();
        kubectl.run("create", "secret", "generic", "password", "-n", "doomed", "--from-literal=p=q").assertSuccess();
        kubectl.run("create", "deployment", "web", "-n", "doomed", "--image=nginx").assertSuccess();
        client.pods().inNamespace("doomed").resource(new PodBuilder().withNewMetadata().withName("loose").endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec().build()).create();

        kubectl.run("delete", "namespace", "doomed", "--timeout=60s").assertSuccess();

        assertThat(client.namespaces().withName("doomed").get()).isNull();
        Kubectl.Result missing = kubectl.run("get", "namespace", "doomed");
        assertThat(missing.exitCode()).isNotZero();
        assertThat(missing.stderr()).contains("NotFound");
    }

    @Test
    void aTerminatingNamespaceReportsItsRemainingContent() {
        kubectl.run("create", "namespace", "held").assertSuccess();
        client.configMaps().inNamespace("held").resource(new ConfigMapBuilder().withNewMetadata().withName("held")
                .addToFinalizers("example.com/hold").endMetadata().build()).create();

        kubectl.run("delete", "namespace", "held", "--wait=false").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> {
            Namespace namespace = client.namespaces().withName("held").get();
            assertThat(namespace.getStatus().getPhase()).isEqualTo("Terminating");
            assertThat(namespace.getStatus().getConditions()).anySatisfy(condition -> {
                assertThat(condition.getType()).isEqualTo("NamespaceFinalizersRemaining");
                assertThat(condition.getStatus()).isEqualTo("True");
                assertThat(condition.getMessage()).isEqualTo("Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
            });
        });

        client.configMaps().inNamespace("held").withName("held")
                .edit(configMap -> new ConfigMapBuilder(configMap).editMetadata().withFinalizers(List.of()).endMetadata().build());

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(client.namespaces().withName("held").get()).isNull());
    }

    @Test
    void aNewNamespaceGetsTheDefaultServiceAccountAndTheRootCa() throws IOException {
        kubectl.run("create", "namespace", "fresh").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(client.serviceAccounts().inNamespace("fresh").withName("default").get()).isNotNull();
            assertThat(client.configMaps().inNamespace("fresh").withName("kube-root-ca.crt").get()).isNotNull();
        });
        String caData = Config.fromKubeconfig(Files.readString(server.kubeconfig())).getCaCertData();
        String published = client.configMaps().inNamespace("fresh").withName("kube-root-ca.crt").get().getData().get("ca.crt");
        assertThat(published).isEqualTo(new String(Base64.getDecoder().decode(caData), StandardCharsets.UTF_8));

        kubectl.run("delete", "serviceaccount", "default", "-n", "fresh").assertSuccess();
        kubectl.run("delete", "configmap", "kube-root-ca.crt", "-n", "fresh").assertSuccess();

        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(client.serviceAccounts().inNamespace("fresh").withName("default").get()).isNotNull();
            assertThat(client.configMaps().inNamespace("fresh").withName("kube-root-ca.crt").get()).isNotNull();
        });
    }

    @Test
    void quotaUsageFollowsCreatesAndDeletes() {
        kubectl.run("create", "namespace", "quoted").assertSuccess();
        client.resourceQuotas().inNamespace("quoted").resource(new ResourceQuotaBuilder().withNewMetadata().withName("objects").endMetadata()
                .withNewSpec().withHard(Map.of("configmaps", new Quantity("10"), "secrets", new Quantity("10"), "count/replicasets.apps", new Quantity("5")))
                .endSpec().build()).create();
        for (int index = 0; index < 3; index++) {
            client.configMaps().inNamespace("quoted").resource(new ConfigMapBuilder().withNewMetadata().withName("config-" + index).endMetadata().build()).create();
        }
        client.secrets().inNamespace("quoted").resource(new SecretBuilder().withNewMetadata().withName("secret").endMetadata().build()).create();

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(used("quoted", "objects")).isEqualTo(Map.of(
                "configmaps", Integer.toString(client.configMaps().inNamespace("quoted").list().getItems().size()),
                "secrets", "1",
                "count/replicasets.apps", "0")));

        client.configMaps().inNamespace("quoted").withName("config-0").delete();
        client.configMaps().inNamespace("quoted").withName("config-1").delete();
        client.secrets().inNamespace("quoted").withName("secret").delete();

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(used("quoted", "objects")).isEqualTo(Map.of(
                "configmaps", Integer.toString(client.configMaps().inNamespace("quoted").list().getItems().size()),
                "secrets", "0",
                "count/replicasets.apps", "0")));
    }

    private static Map<String, String> used(String namespace, String name) {
        ResourceQuota quota = client.resourceQuotas().inNamespace(namespace).withName(name).get();
        if (quota.getStatus() == null || quota.getStatus().getUsed() == null) {
            return Map.of();
        }
        return quota.getStatus().getUsed().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, entry -> entry.getValue().toString()));
    }

    private static ReplicaSet replicaSet(String name) {
        return client.apps().replicaSets().inNamespace("default").resource(new ReplicaSetBuilder()
                .withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withReplicas(0)
                .withNewSelector().addToMatchLabels("replica-set", name).endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("replica-set", name).endMetadata()
                .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec()
                .endTemplate().endSpec().build()).create();
    }

    /** Pods owned by {@code owner} through plain (non-controller) references that block owner deletion. */
    private static void createPods(ReplicaSet owner, String prefix, int count) {
        OwnerReference reference = new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind("ReplicaSet")
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withBlockOwnerDeletion(true).build();
        for (int index = 0; index < count; index++) {
            client.pods().inNamespace("default").resource(new PodBuilder()
                    .withNewMetadata().withName(prefix + "-" + index).addToLabels("owned-by", prefix).withOwnerReferences(reference).endMetadata()
                    .withNewSpec().addNewContainer().withName("app").withImage("nginx").endContainer().endSpec()
                    .build()).create();
        }
    }

    private static List<Pod> podsOf(String prefix) {
        return client.pods().inNamespace("default").withLabel("owned-by", prefix).list().getItems();
    }
}
