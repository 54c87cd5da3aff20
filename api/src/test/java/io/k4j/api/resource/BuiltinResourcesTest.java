package io.k4j.api.resource;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BuiltinResourcesTest {
    @Test
    void servesEveryResourceOfTheCatalogueOnce() {
        List<ResourceType> all = BuiltinResources.all();
        assertThat(all).hasSize(39);
        Set<GroupVersionResource> resources = new HashSet<>();
        Set<GroupVersionKind> kinds = new HashSet<>();
        for (ResourceType type : all) {
            assertThat(resources.add(type.gvr())).as("duplicate %s", type.gvr()).isTrue();
            assertThat(kinds.add(type.gvk())).as("duplicate %s", type.gvk()).isTrue();
        }
    }

    @Test
    void modelClassesCarryTheCatalogueKind() {
        for (ResourceType type : BuiltinResources.all()) {
            assertThat(HasMetadata.class.isAssignableFrom(type.modelClass())).as(type.plural()).isTrue();
            // fabric8 derives apiVersion and kind of a model class from its annotations; they must agree with ours
            assertThat(HasMetadata.getKind(type.modelClass().asSubclass(HasMetadata.class))).as(type.plural()).isEqualTo(type.kind());
            assertThat(HasMetadata.getApiVersion(type.modelClass().asSubclass(HasMetadata.class))).as(type.plural()).isEqualTo(type.gvk().apiVersion());
        }
    }

    @Test
    void podsHaveUpstreamDiscoveryData() {
        ResourceType pods = BuiltinResources.byResource(new GroupVersionResource("", "v1", "pods")).orElseThrow();
        assertThat(pods.kind()).isEqualTo("Pod");
        assertThat(pods.singular()).isEqualTo("pod");
        assertThat(pods.shortNames()).containsExactly("po");
        assertThat(pods.categories()).containsExactly("all");
        assertThat(pods.namespaced()).isTrue();
        assertThat(pods.verbs()).isEqualTo(BuiltinResources.STANDARD_VERBS);
        assertThat(pods.subresources()).containsExactlyInAnyOrder(
                "attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "proxy", "status");
        SubresourceType eviction = BuiltinResources.subresource(pods.gvr(), "eviction").orElseThrow();
        assertThat(eviction.gvk()).isEqualTo(new GroupVersionKind("policy", "v1", "Eviction"));
        assertThat(eviction.verbs()).containsExactly("create");
        assertThat(eviction.qualifiedName()).isEqualTo("pods/eviction");
        assertThat(BuiltinResources.subresource(pods.gvr(), "log").orElseThrow().verbs()).containsExactly("get");
        assertThat(BuiltinResources.subresource(pods.gvr(), "exec").orElseThrow().gvk().kind()).isEqualTo("PodExecOptions");
    }

    @Test
    void scaleSubresourcesUseAutoscalingScale() {
        for (String plural : List.of("deployments", "replicasets", "statefulsets")) {
            SubresourceType scale = BuiltinResources.subresource(new GroupVersionResource("apps", "v1", plural), "scale").orElseThrow();
            assertThat(scale.gvk()).isEqualTo(new GroupVersionKind("autoscaling", "v1", "Scale"));
            assertThat(scale.verbs()).containsExactlyInAnyOrder("get", "patch", "update");
        }
        assertThat(BuiltinResources.subresource(new GroupVersionResource("apps", "v1", "daemonsets"), "scale")).isEmpty();
        assertThat(BuiltinResources.subresource(new GroupVersionResource("", "v1", "replicationcontrollers"), "scale")).isPresent();
    }

    @Test
    void namespacesHaveNoDeleteCollection() {
        ResourceType namespaces = BuiltinResources.byName("ns").get(0);
        assertThat(namespaces.verbs()).doesNotContain("deletecollection").contains("delete", "watch");
        assertThat(namespaces.namespaced()).isFalse();
        assertThat(namespaces.subresources()).containsExactlyInAnyOrder("finalize", "status");
        assertThat(BuiltinResources.subresource(namespaces.gvr(), "finalize").orElseThrow().verbs()).containsExactly("update");
    }

    @Test
    void reviewsAndBindingsAreCreateOnly() {
        for (String name : List.of("tokenreviews", "selfsubjectreviews", "subjectaccessreviews", "selfsubjectaccessreviews",
                "localsubjectaccessreviews", "selfsubjectrulesreviews", "bindings")) {
            ResourceType type = BuiltinResources.byName(name).get(0);
            assertThat(BuiltinResources.isCreateOnly(type)).as(name).isTrue();
        }
        assertThat(BuiltinResources.byName("localsubjectaccessreviews").get(0).namespaced()).isTrue();
        assertThat(BuiltinResources.byName("subjectaccessreviews").get(0).namespaced()).isFalse();
        assertThat(BuiltinResources.isCreateOnly(BuiltinResources.byName("pods").get(0))).isFalse();
    }

    @Test
    void findsByTheNamesKubectlAccepts() {
        assertThat(BuiltinResources.byName("deploy")).extracting(ResourceType::plural).containsExactly("deployments");
        assertThat(BuiltinResources.byName("Deployment")).extracting(ResourceType::plural).containsExactly("deployments");
        assertThat(BuiltinResources.byName("deployments.apps")).extracting(ResourceType::plural).containsExactly("deployments");
        assertThat(BuiltinResources.byName("deploy.batch")).isEmpty();
        assertThat(BuiltinResources.byName("pc")).extracting(ResourceType::plural).containsExactly("priorityclasses");
        // core wins for an ambiguous name, as kubectl resolves it
        assertThat(BuiltinResources.byName("ev")).extracting(type -> type.gvk().group()).containsExactly("", "events.k8s.io");
        assertThat(BuiltinResources.byName("events.events.k8s.io")).extracting(type -> type.gvk().group()).containsExactly("events.k8s.io");
        assertThat(BuiltinResources.byName("nothing")).isEmpty();
    }

    @Test
    void findsByKind() {
        assertThat(BuiltinResources.byKind(new GroupVersionKind("batch", "v1", "CronJob")).orElseThrow().shortNames()).containsExactly("cj");
        assertThat(BuiltinResources.byKind(GroupVersionKind.of("events.k8s.io/v1", "Event")).orElseThrow().plural()).isEqualTo("events");
        assertThat(BuiltinResources.byKind(GroupVersionKind.of("apps/v1beta1", "Deployment"))).isEmpty();
    }

    @Test
    void groupsAreInUpstreamOrderAndCoverTheCatalogue() {
        assertThat(BuiltinResources.groups()).extracting(ApiGroupVersions::group).containsExactly(
                "apps", "events.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "batch", "policy",
                "rbac.authorization.k8s.io", "storage.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "discovery.k8s.io");
        Set<String> served = new HashSet<>();
        for (ApiGroupVersions group : BuiltinResources.groups()) {
            for (String version : group.versions()) {
                assertThat(BuiltinResources.resources(group.group(), version)).as(group.groupVersion(version)).isNotEmpty();
                served.add(group.groupVersion(version));
            }
        }
        for (ResourceType type : BuiltinResources.all()) {
            if (!type.gvk().group().isEmpty()) {
                assertThat(served).contains(type.gvk().apiVersion());
            }
        }
        assertThat(BuiltinResources.resources("", "v1")).extracting(ResourceType::plural).startsWith("bindings", "configmaps");
    }

    @Test
    void eventsOfBothGroupsShareStorage() {
        ResourceType coreEvents = BuiltinResources.byResource(new GroupVersionResource("", "v1", "events")).orElseThrow();
        ResourceType newEvents = BuiltinResources.byResource(new GroupVersionResource("events.k8s.io", "v1", "events")).orElseThrow();
        assertThat(BuiltinResources.storageResource(newEvents)).isEqualTo(coreEvents.gvr());
        assertThat(BuiltinResources.sharesStorage(coreEvents, newEvents)).isTrue();
        ResourceType pods = BuiltinResources.byName("pods").get(0);
        assertThat(BuiltinResources.storageResource(pods)).isEqualTo(pods.gvr());
        assertThat(BuiltinResources.sharesStorage(pods, coreEvents)).isFalse();
    }

    @Test
    void modelClassesRoundTripThroughJackson() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        for (ResourceType type : BuiltinResources.all()) {
            Object instance = mapper.readValue("{\"apiVersion\":\"" + type.gvk().apiVersion() + "\",\"kind\":\"" + type.kind() + "\"}", type.modelClass());
            assertThat(mapper.valueToTree(instance).path("kind").asText()).isEqualTo(type.kind());
        }
    }

    @Test
    void storageVersionHashesMatchUpstreamDiscovery() {
        assertThat(BuiltinResources.storageVersionHash(BuiltinResources.byName("configmaps").get(0))).contains("qFsyl6wFWjQ=");
        assertThat(BuiltinResources.storageVersionHash(BuiltinResources.byName("pods").get(0))).contains("xPOwRZ+Yhw8=");
        // both event resources name the one stored form
        for (ResourceType events : BuiltinResources.byName("events")) {
            assertThat(BuiltinResources.storageVersionHash(events)).contains("r2yiGXH7wu8=");
        }
        assertThat(BuiltinResources.storageVersionHash(BuiltinResources.byName("bindings").get(0))).isEmpty();
    }
}
