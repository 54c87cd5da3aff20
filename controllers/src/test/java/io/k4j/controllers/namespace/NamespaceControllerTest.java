package io.k4j.controllers.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceCondition;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.testing.MutableClock;
import io.k4j.controllers.dynamic.ApiResource;
import io.k4j.controllers.dynamic.ResourceDiscovery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NamespaceControllerTest {
    private static final ApiResource CONFIG_MAPS = resource("", "configmaps", "ConfigMap", true);
    private static final ApiResource SECRETS = resource("", "secrets", "Secret", false);
    private static final ApiResource PODS = resource("", "pods", "Pod", true);
    private static final ApiResource DEPLOYMENTS = resource("apps", "deployments", "Deployment", true);
    private static final ApiResource NODES = new ApiResource("", "v1", "Node", "nodes", false, List.of("list", "delete", "deletecollection"));

    private final CacheImpl<Namespace> namespaceCache = new CacheImpl<>();
    private final FakeNamespaceClient api = new FakeNamespaceClient();
    private final NamespaceController controller = new NamespaceController(new Lister<>(namespaceCache), api,
            new MutableClock(Instant.parse("2026-01-01T00:00:00Z")));

    @AfterEach
    void shutDown() {
        controller.close();
    }

    @Test
    void emptiesTheNamespacePodsFirstThenRemovesTheKubernetesFinalizer() {
        api.resources.addAll(List.of(CONFIG_MAPS, SECRETS, NODES, PODS, DEPLOYMENTS));
        api.add(CONFIG_MAPS, object("settings"));
        api.add(SECRETS, object("password"));
        api.add(PODS, object("loose"));
        api.add(DEPLOYMENTS, object("web"));
        namespaceCache.put(terminating("doomed"));

        controller.sync("doomed");

        assertThat(api.calls).containsExactly(
                "list pods", "deletecollection pods", "list pods",
                "deletecollection configmaps", "list configmaps",
                "list secrets", "delete secrets/password", "list secrets",
                "deletecollection deployments", "list deployments",
                "finalize doomed []");
        assertThat(conditions(api.lastStatus)).containsExactly(
                "NamespaceDeletionDiscoveryFailure False ResourcesDiscovered All resources successfully discovered",
                "NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions All legacy kube types successfully parsed",
                "NamespaceDeletionContentFailure False ContentDeleted All content successfully deleted, may be waiting on finalization",
                "NamespaceContentRemaining False ContentRemoved All content successfully removed",
                "NamespaceFinalizersRemaining False ContentHasNoFinalizers All content-preserving finalizers finished");
    }

    @Test
    void waitsForPodsWithAGracePeriodBeforeFinalizing() {
        api.resources.add(PODS);
        api.add(PODS, new GenericKubernetesResourceBuilder(object("running"))
                .addToAdditionalProperties("spec", Map.of("nodeName", "node-1", "terminationGracePeriodSeconds", 30)).build());
        namespaceCache.put(terminating("doomed"));

        controller.sync("doomed");

        assertThat(api.calls).doesNotContain("finalize doomed []");
        assertThat(conditions(api.lastStatus)).contains(
                "NamespaceContentRemaining True SomeResourcesRemain Some resources are remaining: pods. has 1 resource instances");

        api.objects.get(PODS).clear();
        controller.sync("doomed");
        assertThat(api.calls).endsWith("finalize doomed []");
    }

    @Test
    void reportsFinalizersThatKeepContentAndWaits() {
        api.resources.add(CONFIG_MAPS);
        api.add(CONFIG_MAPS, new GenericKubernetesResourceBuilder(object("held")).editMetadata().addToFinalizers("example.com/hold").endMetadata().build());
        Namespace namespace = terminating("doomed");

        Optional<Duration> wait = new NamespacedResourcesDeleter(api, new MutableClock(Instant.parse("2026-01-01T00:00:00Z"))).delete(namespace);

        assertThat(wait).contains(Duration.ofSeconds(NamespacedResourcesDeleter.FINALIZER_ESTIMATE_SECONDS));
        assertThat(conditions(api.lastStatus)).contains(
                "NamespaceContentRemaining True SomeResourcesRemain Some resources are remaining: configmaps. has 1 resource instances",
                "NamespaceFinalizersRemaining True SomeFinalizersRemain Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
        assertThat(api.calls).noneMatch(call -> call.startsWith("finalize"));
    }

    @Test
    void aPartialDiscoveryIsReportedAndNeverFinalizes() {
        api.resources.add(CONFIG_MAPS);
        api.discoveryFailures.add("metrics.k8s.io/v1beta1: the server is currently unable to handle the request");

        assertThatThrownBy(() -> new NamespacedResourcesDeleter(api, new MutableClock(Instant.parse("2026-01-01T00:00:00Z"))).delete(terminating("doomed")))
                .hasMessageContaining("discovery failed");
        assertThat(conditions(api.lastStatus)).contains(
                "NamespaceDeletionDiscoveryFailure True DiscoveryFailed Discovery failed for some groups, 1 failing: metrics.k8s.io/v1beta1: the server is currently unable to handle the request");
        assertThat(api.calls).noneMatch(call -> call.startsWith("finalize"));
    }

    @Test
    void anActiveNamespaceIsLeftAlone() {
        api.resources.add(CONFIG_MAPS);
        api.add(CONFIG_MAPS, object("settings"));
        namespaceCache.put(new NamespaceBuilder().withNewMetadata().withName("live").endMetadata()
                .withNewSpec().withFinalizers("kubernetes").endSpec().withNewStatus().withPhase("Active").endStatus().build());

        controller.sync("live");

        assertThat(api.calls).isEmpty();
    }

    @Test
    void marksTheNamespaceTerminatingFirst() {
        api.resources.add(CONFIG_MAPS);
        namespaceCache.put(new NamespaceBuilder(terminating("doomed")).editStatus().withPhase("Active").endStatus().build());

        controller.sync("doomed");

        assertThat(api.statusPhases).first().isEqualTo("Terminating");
    }

    private static List<String> conditions(Namespace namespace) {
        List<String> lines = new ArrayList<>();
        for (NamespaceCondition condition : namespace.getStatus().getConditions()) {
            lines.add(condition.getType() + " " + condition.getStatus() + " " + condition.getReason() + " " + condition.getMessage());
        }
        return lines;
    }

    private static Namespace terminating(String name) {
        return new NamespaceBuilder().withNewMetadata().withName(name).withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata()
                .withNewSpec().withFinalizers("kubernetes").endSpec().withNewStatus().withPhase("Terminating").endStatus().build();
    }

    private static GenericKubernetesResource object(String name) {
        return new GenericKubernetesResourceBuilder().withNewMetadata().withNamespace("doomed").withName(name).endMetadata().build();
    }

    private static ApiResource resource(String group, String plural, String kind, boolean deleteCollection) {
        List<String> verbs = deleteCollection ? List.of("list", "delete", "deletecollection") : List.of("list", "delete");
        return new ApiResource(group, "v1", kind, plural, true, verbs);
    }

    /**
     * The apiserver as the namespace controller sees it: objects without finalizers go at once, except pods on a
     * node, which only get a deletion timestamp (their kubelet finishes them). Not thread-safe; tests call it from one thread.
     */
    private static final class FakeNamespaceClient implements NamespaceClient {
        final List<ApiResource> resources = new ArrayList<>();
        final List<String> discoveryFailures = new ArrayList<>();
        final Map<ApiResource, List<GenericKubernetesResource>> objects = new LinkedHashMap<>();
        final List<String> calls = new ArrayList<>();
        final List<String> statusPhases = new ArrayList<>();
        Namespace lastStatus;

        void add(ApiResource resource, GenericKubernetesResource object) {
            objects.computeIfAbsent(resource, ignored -> new ArrayList<>()).add(object);
        }

        @Override
        public ResourceDiscovery.Discovered discover() {
            return new ResourceDiscovery.Discovered(resources, discoveryFailures);
        }

        @Override
        public void deleteCollection(ApiResource resource, String namespace) {
            calls.add("deletecollection " + resource.plural());
            new ArrayList<>(objects.getOrDefault(resource, List.of())).forEach(object -> deleteObject(resource, object));
        }

        @Override
        public void delete(ApiResource resource, String namespace, String name) {
            calls.add("delete " + resource.plural() + "/" + name);
            new ArrayList<>(objects.getOrDefault(resource, List.of())).stream()
                    .filter(object -> object.getMetadata().getName().equals(name))
                    .forEach(object -> deleteObject(resource, object));
        }

        private void deleteObject(ApiResource resource, GenericKubernetesResource object) {
            boolean onNode = object.get("spec", "nodeName") != null;
            boolean finalizers = object.getMetadata().getFinalizers() != null && !object.getMetadata().getFinalizers().isEmpty();
            if (onNode || finalizers) {
                object.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
            } else {
                objects.get(resource).remove(object);
            }
        }

        @Override
        public List<GenericKubernetesResource> list(ApiResource resource, String namespace) {
            calls.add("list " + resource.plural());
            return List.copyOf(objects.getOrDefault(resource, List.of()));
        }

        @Override
        public Namespace updateStatus(Namespace namespace) {
            statusPhases.add(namespace.getStatus().getPhase());
            lastStatus = namespace;
            return namespace;
        }

        @Override
        public void finalizeNamespace(Namespace namespace) {
            calls.add("finalize " + namespace.getMetadata().getName() + " " + namespace.getSpec().getFinalizers());
        }
    }
}
