package io.k4j.apiserver.registry.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.events.event.EventConversion;
import io.k4j.apiserver.registry.generic.ResourceDefinition;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import java.util.Set;
import java.util.TreeSet;

class GroupResourcesTest {
    private final GroupResources groups = GroupResources.withCorePodRules(InstantSource.system());
    private final List<ResourceDefinition> definitions = groups.definitions();

    @Test
    void servesEveryResourceOfTheGroups() {
        assertThat(definitions).extracting(definition -> definition.strategy().type().gvr().groupResource()).containsExactlyInAnyOrder(
                "deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps", "controllerrevisions.apps",
                "jobs.batch", "cronjobs.batch", "leases.coordination.k8s.io", "endpointslices.discovery.k8s.io", "events.events.k8s.io",
                "roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
                "clusterrolebindings.rbac.authorization.k8s.io", "poddisruptionbudgets.policy", "priorityclasses.scheduling.k8s.io",
                "storageclasses.storage.k8s.io");
        definitions.forEach(definition -> assertThat(groups.definition(definition.strategy().type().gvr())).isSameAs(definition));
    }

    @Test
    void subresourcesMatchTheCatalogue() {
        definitions.forEach(definition -> {
            Set<String> served = new TreeSet<>(definition.subresourceStrategies().keySet());
            definition.subresourceHandlers().stream().map(SubresourceHandler::subresource).forEach(served::add);
            assertThat(served).as(definition.strategy().type().plural()).isEqualTo(new TreeSet<>(definition.strategy().type().subresources()));
        });
    }

    @Test
    void eventsLiveInCoreEventStorage() {
        ResourceDefinition events = groups.definition(new GroupVersionResource("events.k8s.io", "v1", "events"));

        assertThat(events.conversion()).containsInstanceOf(EventConversion.class);
    }
}
