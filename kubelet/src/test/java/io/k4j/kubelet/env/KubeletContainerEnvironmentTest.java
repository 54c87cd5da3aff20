package io.k4j.kubelet.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.k4j.controllerkit.testing.FakeEventRecorder;
import io.k4j.kubelet.podobjects.FakePodObjectSource;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeletContainerEnvironmentTest {
    private static final PodAddresses ADDRESSES = new PodAddresses(List.of("10.42.0.7", "fd00::7"), List.of("192.168.1.5"));

    private final FakePodObjectSource objects = new FakePodObjectSource(InstantSource.fixed(Instant.parse("2026-01-01T00:00:00Z")));
    private final FakeEventRecorder events = new FakeEventRecorder();
    private final KubeletContainerEnvironment environment = new KubeletContainerEnvironment(objects, events,
            () -> Map.of("cpu", new Quantity("4"), "memory", new Quantity("8Gi"), "ephemeral-storage", new Quantity("100Gi")));

    private static Pod pod(Container container) {
        return new PodBuilder().withNewMetadata().withNamespace("ns").withName("web-1").withUid("uid-1")
                .withLabels(Map.of("app", "web", "tier", "front")).withAnnotations(Map.of("note", "say \"hi\"\n"))
                .endMetadata()
                .withNewSpec().withNodeName("node-a").withServiceAccountName("robot").withContainers(container).endSpec()
                .build();
    }

    private static Container container(EnvVar... variables) {
        return new ContainerBuilder().withName("c1").withImage("busybox").withEnv(variables)
                .withNewResources().withRequests(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("64Mi")))
                .withLimits(Map.of("memory", new Quantity("128Mi"))).endResources()
                .build();
    }

    private static Map<String, String> asMap(List<EnvironmentVariable> variables) {
        Map<String, String> map = new LinkedHashMap<>();
        variables.forEach(variable -> map.put(variable.name(), variable.value()));
        return map;
    }

    @Test
    void resolvesValuesAndExpandsReferencesToEarlierVariablesAndServices() throws Exception {
        objects.addService(ServiceEnvironmentTest.service("default", "kubernetes", "10.43.0.1", 443));
        Container container = container(
                new EnvVar("GREETING", "hello", null),
                new EnvVar("MESSAGE", "$(GREETING) world via $(KUBERNETES_SERVICE_HOST), $(LATER) $$(GREETING)", null),
                new EnvVar("LATER", "late", null),
                new EnvVar("EMPTY", null, null));

        Map<String, String> variables = asMap(environment.resolve(pod(container), container, ADDRESSES));

        assertThat(variables).containsEntry("MESSAGE", "hello world via 10.43.0.1, $(LATER) $(GREETING)").containsEntry("EMPTY", "")
                .containsEntry("KUBERNETES_SERVICE_PORT", "443");
        assertThat(List.copyOf(variables.keySet()).subList(0, 4)).containsExactly("GREETING", "MESSAGE", "LATER", "EMPTY");
    }

    @Test
    void resolvesDownwardApiFields() throws Exception {
        Container container = container(
                field("NAME", "metadata.name"), field("NAMESPACE", "metadata.namespace"), field("UID", "metadata.uid"),
                field("APP", "metadata.labels['app']"), field("NOTE", "metadata.annotations['note']"),
                field("LABELS", "metadata.labels"), field("NODE", "spec.nodeName"), field("ACCOUNT", "spec.serviceAccountName"),
                field("HOST_IP", "status.hostIP"), field("HOST_IPS", "status.hostIPs"), field("POD_IP", "status.podIP"),
                field("POD_IPS", "status.podIPs"));

        Map<String, String> variables = asMap(environment.resolve(pod(container), container, ADDRESSES));

        assertThat(variables).containsEntry("NAME", "web-1").containsEntry("NAMESPACE", "ns").containsEntry("UID", "uid-1")
                .containsEntry("APP", "web").containsEntry("NOTE", "say \"hi\"\n").containsEntry("LABELS", "app=\"web\"\ntier=\"front\"")
                .containsEntry("NODE", "node-a").containsEntry("ACCOUNT", "robot").containsEntry("HOST_IP", "192.168.1.5")
                .containsEntry("HOST_IPS", "192.168.1.5").containsEntry("POD_IP", "10.42.0.7").containsEntry("POD_IPS", "10.42.0.7,fd00::7");
    }

    @Test
    void resolvesResourcesWithDivisorsAndNodeAllocatableForMissingLimits() throws Exception {
        Container container = container(
                resource("CPU_REQUEST_MILLI", "requests.cpu", "1m"), resource("CPU_REQUEST", "requests.cpu", null),
                resource("CPU_LIMIT", "limits.cpu", null), resource("MEMORY_LIMIT_MI", "limits.memory", "1Mi"),
                resource("MEMORY_REQUEST", "requests.memory", null), resource("STORAGE_LIMIT_GI", "limits.ephemeral-storage", "1Gi"));

        Map<String, String> variables = asMap(environment.resolve(pod(container), container, ADDRESSES));

        assertThat(variables).containsEntry("CPU_REQUEST_MILLI", "250").containsEntry("CPU_REQUEST", "1").containsEntry("CPU_LIMIT", "4")
                .containsEntry("MEMORY_LIMIT_MI", "128").containsEntry("MEMORY_REQUEST", "67108864").containsEntry("STORAGE_LIMIT_GI", "100");
    }

    @Test
    void resolvesConfigMapAndSecretKeysAndSkipsOptionalMissingOnes() throws Exception {
        objects.putConfigMap("ns", "settings", Map.of("mode", "fast")).putSecret("ns", "credentials", Map.of("password", "s3cr3t"));
        Container container = container(
                new EnvVarBuilder().withName("MODE").withNewValueFrom().withNewConfigMapKeyRef("mode", "settings", null).endValueFrom().build(),
                new EnvVarBuilder().withName("PASSWORD").withNewValueFrom().withNewSecretKeyRef("password", "credentials", null).endValueFrom()
                        .build(),
                new EnvVarBuilder().withName("MISSING_KEY").withNewValueFrom().withNewConfigMapKeyRef("nope", "settings", true).endValueFrom()
                        .build(),
                new EnvVarBuilder().withName("MISSING_MAP").withNewValueFrom().withNewSecretKeyRef("x", "absent", true).endValueFrom().build());

        Map<String, String> variables = asMap(environment.resolve(pod(container), container, ADDRESSES));

        assertThat(variables).containsEntry("MODE", "fast").containsEntry("PASSWORD", "s3cr3t").doesNotContainKeys("MISSING_KEY", "MISSING_MAP");
    }

    @Test
    void failsWithUpstreamsMessagesForMissingReferences() {
        objects.putConfigMap("ns", "settings", Map.of("mode", "fast"));
        Container missingMap = container(new EnvVarBuilder().withName("X").withNewValueFrom().withNewConfigMapKeyRef("k", "x", null)
                .endValueFrom().build());
        Container missingKey = container(new EnvVarBuilder().withName("X").withNewValueFrom().withNewConfigMapKeyRef("k", "settings", false)
                .endValueFrom().build());
        Container missingSecret = container(new EnvVarBuilder().withName("X").withNewValueFrom().withNewSecretKeyRef("k", "s", null)
                .endValueFrom().build());

        assertThatThrownBy(() -> environment.resolve(pod(missingMap), missingMap, ADDRESSES))
                .isInstanceOf(CreateContainerConfigException.class).hasMessage("configmap \"x\" not found");
        assertThatThrownBy(() -> environment.resolve(pod(missingKey), missingKey, ADDRESSES))
                .isInstanceOf(CreateContainerConfigException.class).hasMessage("couldn't find key k in ConfigMap ns/settings");
        assertThatThrownBy(() -> environment.resolve(pod(missingSecret), missingSecret, ADDRESSES))
                .isInstanceOf(CreateContainerConfigException.class).hasMessage("secret \"s\" not found");
    }

    @Test
    void envFromAddsPrefixedKeysSkipsInvalidNamesWithAnEventAndEnvOverridesIt() throws Exception {
        objects.putConfigMap("ns", "settings", Map.of("mode", "fast", "1bad", "x", "level", "3"));
        objects.putSecret("ns", "credentials", Map.of("token", "abc"));
        Container container = new ContainerBuilder(container(new EnvVar("CFG_level", "overridden", null)))
                .addNewEnvFrom().withPrefix("CFG_").withNewConfigMapRef("settings", null).endEnvFrom()
                .addNewEnvFrom().withNewSecretRef("credentials", null).endEnvFrom()
                .addNewEnvFrom().withNewConfigMapRef("absent", true).endEnvFrom()
                .build();

        Map<String, String> variables = asMap(environment.resolve(pod(container), container, ADDRESSES));

        assertThat(variables).containsEntry("CFG_mode", "fast").containsEntry("CFG_1bad", "x").containsEntry("CFG_level", "overridden")
                .containsEntry("token", "abc");

        objects.putConfigMap("ns", "settings", Map.of("mode", "fast", "1bad", "x", "bad key", "y"));
        Container unprefixed = new ContainerBuilder(container()).addNewEnvFrom().withNewConfigMapRef("settings", null).endEnvFrom().build();
        Map<String, String> skipped = asMap(environment.resolve(pod(unprefixed), unprefixed, ADDRESSES));

        assertThat(skipped).containsEntry("mode", "fast").doesNotContainKeys("1bad", "bad key");
        assertThat(events.events()).containsExactly("Warning InvalidEnvironmentVariableNames Keys [1bad, bad key] from the EnvFrom configMap "
                + "ns/settings were skipped since they are considered invalid environment variable names.");
    }

    @Test
    void envFromAMissingConfigMapFailsUnlessOptional() {
        Container container = new ContainerBuilder(container()).addNewEnvFrom().withNewConfigMapRef("absent", null).endEnvFrom().build();

        assertThatThrownBy(() -> environment.resolve(pod(container), container, ADDRESSES))
                .isInstanceOf(CreateContainerConfigException.class).hasMessage("configmap \"absent\" not found");
    }

    @Test
    void serviceLinksCanBeTurnedOffButTheKubernetesServiceStays() throws Exception {
        objects.addService(ServiceEnvironmentTest.service("default", "kubernetes", "10.43.0.1", 443));
        objects.addService(ServiceEnvironmentTest.service("ns", "db", "10.43.0.9", 5432));
        Container container = container();
        Pod pod = pod(container);
        pod.getSpec().setEnableServiceLinks(false);

        Map<String, String> variables = asMap(environment.resolve(pod, container, ADDRESSES));

        assertThat(variables).containsEntry("KUBERNETES_SERVICE_HOST", "10.43.0.1").doesNotContainKey("DB_SERVICE_HOST");
        pod.getSpec().setEnableServiceLinks(true);
        assertThat(asMap(environment.resolve(pod, container, ADDRESSES))).containsEntry("DB_PORT", "tcp://10.43.0.9:5432");
    }

    private static EnvVar field(String name, String path) {
        return new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef().withFieldPath(path).endFieldRef().endValueFrom().build();
    }

    private static EnvVar resource(String name, String resource, String divisor) {
        return new EnvVarBuilder().withName(name).withNewValueFrom().withNewResourceFieldRef().withResource(resource)
                .withDivisor(divisor == null ? null : new Quantity(divisor)).endResourceFieldRef().endValueFrom().build();
    }
}
