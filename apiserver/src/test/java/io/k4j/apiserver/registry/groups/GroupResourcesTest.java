package io.k4j.apiserver.registry.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.events.event.EventConversion;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;
import java.util.Set;
import java.util.TreeSet;

class GroupResourcesTest {
    private final Map<GroupVersionResource, ResourceDefinition> definitions = GroupResources.withCorePodRules(InstantSource.system()).definitions();

    @Test
    void servesEveryResourceOfTheGroups() {
        assertThat(definitions.keySet()).extracting(GroupVersionResource::groupResource).containsExactlyInAnyOrder(
                "deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps", "controllerrevisions.apps",
                "jobs.batch", "cronjobs.batch", "leases.coordination.k8s.io", "endpointslices.discovery.k8s.io", "events.events.k8s.io",
                "roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
                "clusterrolebindings.rbac.authorization.k8s.io", "poddisruptionbudgets.policy", "priorityclasses.scheduling.k8s.io",
                "storageclasses.storage.k8s.io");
        definitions.forEach((resource, definition) -> assertThat(definition.strategy().type().gvr()).isEqualTo(resource));
    }

    @Test
    void subresourcesMatchTheCatalogue() {
        definitions.forEach((resource, definition) -> {
            Set<String> served = new TreeSet<>(definition.subresourceStrategies().keySet());
            definition.subresourceHandlers().stream().map(SubresourceHandler::subresource).forEach(served::add);
            assertThat(served).as(resource.groupResource()).isEqualTo(new TreeSet<>(definition.strategy().type().subresources()));
        });
    }

    @Test
    void eventsLiveInCoreEventStorage() {
        ResourceDefinition events = definitions.get(new GroupVersionResource("events.k8s.io", "v1", "events"));

        assertThat(events.conversion()).containsInstanceOf(EventConversion.class);
    }
}
