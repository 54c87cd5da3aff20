package io.k4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.env.EnvironmentVariable;
import io.k4j.kubelet.env.KubeletContainerEnvironment;
import io.k4j.kubelet.env.PodAddresses;
import io.k4j.kubelet.podobjects.ApiPodObjectSource;
import io.k4j.kubelet.volume.KubeletVolumeManager;
import io.k4j.kubelet.volume.Mounter;
import io.k4j.kubelet.volume.PodVolumes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubelet's pod configuration against a started k4j server with a node's identity: the Node authorizer lets the
 * node read exactly the ConfigMaps, Secrets and service-account tokens of pods bound to it, and the volume manager
 * and environment builder turn them into files and variables.
 */
class PodConfigObjectsIT {
    private static final String NAMESPACE = "podconfig";
    private static final String NODE = "node-a";

    @TempDir
    static Path temporaryDirectory;

    private static K4jServer server;
    private static KubernetesClient admin;
    private static KubernetesClient node;

    @BeforeAll
    static void start() throws Exception {
        server = K4jServer.start(temporaryDirectory.resolve("data"));
        String kubeconfig = Files.readString(server.kubeconfig());
        admin = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
        Config nodeConfig = Config.fromKubeconfig(kubeconfig);
        // The admin impersonates the kubelet, so that authorization sees system:node:node-a in system:nodes.
        nodeConfig.setImpersonateUsername("system:node:" + NODE);
        nodeConfig.setImpersonateGroups("system:nodes", "system:authenticated");
        node = new KubernetesClientBuilder().withConfig(nodeConfig).build();

        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        admin.serviceAccounts().inNamespace(NAMESPACE).resource(new ServiceAccountBuilder().withNewMetadata().withName("robot").endMetadata()
                .build()).create();
        admin.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName("settings").endMetadata()
                .withData(Map.of("mode", "fast")).build()).create();
        admin.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata().withName("unrelated").endMetadata()
                .withData(Map.of("x", "y")).build()).create();
        admin.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder().withNewMetadata().withName("credentials").endMetadata()
                .withStringData(Map.of("password", "s3cr3t")).build()).create();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> admin.configMaps().inNamespace(NAMESPACE).withName("kube-root-ca.crt").get() != null);
        admin.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("web").endMetadata()
                .withNewSpec().withNodeName(NODE).withServiceAccountName("robot")
                .addNewContainer().withName("c1").withImage("busybox")
                .addNewEnv().withName("MODE").withNewValueFrom().withNewConfigMapKeyRef("mode", "settings", null).endValueFrom().endEnv()
                .addNewEnv().withName("PASSWORD").withNewValueFrom().withNewSecretKeyRef("password", "credentials", null).endValueFrom()
                .endEnv()
                .addNewVolumeMount().withName("cfg").withMountPath("/etc/app").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("cfg").withNewConfigMap().withName("settings").endConfigMap().endVolume()
                .addNewVolume().withName("creds").withNewSecret().withSecretName("credentials").endSecret().endVolume()
                .endSpec().build()).create();
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theNodeReadsOnlyWhatItsPodsReference() throws Exception {
        try (ApiPodObjectSource objects = new ApiPodObjectSource(node)) {
            assertThat(objects.configMap(NAMESPACE, "settings")).get().satisfies(configMap ->
                    assertThat(configMap.getData()).containsEntry("mode", "fast"));
            assertThat(objects.secret(NAMESPACE, "credentials")).isPresent();
            assertThat(objects.configMap(NAMESPACE, "kube-root-ca.crt")).isPresent();
            assertThatThrownBy(() -> objects.configMap(NAMESPACE, "unrelated"))
                    .hasMessageContaining("forbidden").hasMessageContaining("no relationship found between node 'node-a' and this object");
            assertThat(objects.services("default")).anyMatch(service -> service.getMetadata().getName().equals("kubernetes"));
        }
    }

    @Test
    void theNodeGetsTokensOnlyForItsPodsServiceAccounts() throws Exception {
        Pod pod = admin.pods().inNamespace(NAMESPACE).withName("web").get();
        TokenRequest request = new TokenRequestBuilder().withNewSpec().withAudiences("https://kubernetes.default.svc")
                .withExpirationSeconds(3600L).withNewBoundObjectRef().withApiVersion("v1").withKind("Pod")
                .withName("web").withUid(pod.getMetadata().getUid()).endBoundObjectRef().endSpec().build();
        try (ApiPodObjectSource objects = new ApiPodObjectSource(node)) {
            TokenRequest answered = objects.requestToken(NAMESPACE, "robot", request);

            assertThat(answered.getStatus().getToken()).isNotEmpty();
            assertThat(answered.getStatus().getExpirationTimestamp()).isNotEmpty();
            assertThatThrownBy(() -> objects.requestToken(NAMESPACE, "default", request)).hasMessageContaining("forbidden");
        }
    }

    @Test
    void volumesAndEnvironmentComeFromTheApiWithTheNodesIdentity() throws Exception {
        Pod pod = admin.pods().inNamespace(NAMESPACE).withName("web").get();
        // The ServiceAccount admission added the kube-api-access projected volume.
        String accessVolume = pod.getSpec().getVolumes().stream().map(volume -> volume.getName())
                .filter(name -> name.startsWith("kube-api-access-")).findFirst().orElseThrow();
        Path root = temporaryDirectory.resolve("kubelet");
        try (ApiPodObjectSource objects = new ApiPodObjectSource(node);
                KubeletVolumeManager volumes = new KubeletVolumeManager(root, objects, new NoMounts(), InstantSource.system(),
                        () -> Map.of("memory", new Quantity("1Gi")), "cluster.local", Path.of("/etc/hosts"))) {
            PodVolumes mounted = volumes.mount(pod);

            Path access = mounted.volumePaths().get(accessVolume);
            assertThat(Files.readString(access.resolve("token"))).isNotEmpty();
            assertThat(Files.readString(access.resolve("ca.crt"))).startsWith("-----BEGIN CERTIFICATE-----");
            assertThat(Files.readString(access.resolve("namespace"))).isEqualTo(NAMESPACE);
            assertThat(Files.readString(mounted.volumePaths().get("cfg").resolve("mode"))).isEqualTo("fast");
            assertThat(Files.readString(mounted.volumePaths().get("creds").resolve("password"))).isEqualTo("s3cr3t");

            Container container = pod.getSpec().getContainers().get(0);
            List<EnvironmentVariable> environment = new KubeletContainerEnvironment(objects, new NoEvents(),
                    () -> Map.of("memory", new Quantity("1Gi"))).resolve(pod, container, new PodAddresses(List.of("10.42.0.9"),
                    List.of("127.0.0.1")));
            assertThat(environment).contains(new EnvironmentVariable("MODE", "fast"), new EnvironmentVariable("PASSWORD", "s3cr3t"))
                    .anyMatch(variable -> variable.name().equals("KUBERNETES_SERVICE_HOST"));

            volumes.unmount(pod.getMetadata().getUid());
            assertThat(root.resolve("pods").resolve(pod.getMetadata().getUid())).doesNotExist();
        }
    }

    /** The test does not mount tmpfs (it need not run as root); secret volumes stay plain directories. */
    private static final class NoMounts implements Mounter {
        @Override
        public void mountTmpfs(Path directory, OptionalLong sizeBytes) {}

        @Override
        public void bindMount(Path source, Path target) {
            throw new UnsupportedOperationException("the test's pod has no subPath");
        }

        @Override
        public void unmount(Path directory) {}

        @Override
        public List<Path> mountPointsUnder(Path directory) {
            return List.of();
        }
    }

    private static final class NoEvents implements EventRecorder {
        @Override
        public void event(io.fabric8.kubernetes.api.model.HasMetadata object, String type, String reason, String message) {}
    }
}
