package io.k4j.apiserver.registry.groups;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.generic.AdmissionChain;
import io.k4j.apiserver.registry.generic.GenericStore;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.storage.sqlite.SqliteKeyValueStore;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group definitions served by the real generic store over SQLite: what a client sees end to end. */
class GroupResourcesStoreTest {
    private static final InstantSource CLOCK = InstantSource.fixed(StrategyTesting.NOW);
    private final GroupResources groups = GroupResources.withCorePodRules(CLOCK);
    private final List<GenericStore> stores = new ArrayList<>();
    private SqliteKeyValueStore storage;

    @BeforeEach
    void openStorage(@TempDir Path directory) {
        storage = SqliteKeyValueStore.open(directory.resolve("state.db"));
    }

    @AfterEach
    void close() {
        stores.forEach(GenericStore::close);
        storage.close();
    }

    private GenericStore store(String group, String resource) {
        GenericStore store = new GenericStore(groups.definition(new GroupVersionResource(group, "v1", resource)), storage, AdmissionChain.NONE, CLOCK, 100);
        store.start();
        stores.add(store);
        return store;
    }

    private static ObjectNode deployment(String templateLabels) {
        return json("{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default'},"
                + " 'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}}, 'template': " + podTemplate(templateLabels, "Always") + "}}");
    }

    @Test
    void createsDefaultedDeploymentsAndScalesThem() {
        GenericStore deployments = store("apps", "deployments");
        ObjectNode created = deployments.create(deployment("{'app': 'web'}"));
        assertThat(created.at("/metadata/generation").asLong()).isEqualTo(1);
        assertThat(created.at("/spec/strategy/rollingUpdate/maxSurge").asText()).isEqualTo("25%");
        SubresourceHandler scale = groups.definition(deployments.type().gvr()).subresourceHandlers().get(0);
        SubresourceHandler.Request request = new SubresourceHandler.Request(deployments, "default", "web", UserInfo.of("admin", List.of()), false);

        ObjectNode read = scale.get(request);
        ObjectNode scaled = scale.update(request, json("{'metadata': {'name': 'web', 'resourceVersion': '" + read.at("/metadata/resourceVersion").asText() + "'},"
                + " 'spec': {'replicas': 5}}"));

        assertThat(scaled.at("/spec/replicas").asLong()).isEqualTo(5);
        assertThat(scaled.at("/status/selector").asText()).isEqualTo("app=web");
        ObjectNode stored = deployments.get("default", "web");
        assertThat(stored.at("/spec/replicas").asLong()).isEqualTo(5);
        assertThat(stored.at("/metadata/generation").asLong()).isEqualTo(2);
        assertThatThrownBy(() -> scale.update(request, json("{'metadata': {'resourceVersion': '" + read.at("/metadata/resourceVersion").asText() + "'},"
                + " 'spec': {'replicas': 1}}"))).isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.code()).isEqualTo(409));
    }

    @Test
    void rejectsAnInvalidDeploymentWithUpstreamsStatus() {
        GenericStore deployments = store("apps", "deployments");

        assertThatThrownBy(() -> deployments.create(deployment("{'app': 'other'}"))).isInstanceOfSatisfying(StatusException.class, e -> {
            assertThat(e.code()).isEqualTo(422);
            assertThat(e.getMessage()).isEqualTo("Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid value: "
                    + "map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`");
        });
    }

    @Test
    void jobsGetTheirSelectorFromTheAssignedUid() {
        GenericStore jobs = store("batch", "jobs");

        ObjectNode created = jobs.create(json("{'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'pi', 'namespace': 'default'},"
                + " 'spec': {'template': " + podTemplate("{}", "Never") + "}}"));

        String uid = created.at("/metadata/uid").asText();
        assertThat(created.at("/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid").asText()).isEqualTo(uid).isNotEmpty();
        assertThat(created.at("/spec/template/metadata/labels/job-name").asText()).isEqualTo("pi");
    }

    @Test
    void rbacRolesMayHaveSystemNames() {
        GenericStore clusterRoles = store("rbac.authorization.k8s.io", "clusterroles");

        ObjectNode created = clusterRoles.create(json("{'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'ClusterRole', 'metadata': {'name': 'system:node'},"
                + " 'rules': [{'apiGroups': [''], 'resources': ['nodes'], 'verbs': ['get']}]}"));

        assertThat(created.at("/metadata/name").asText()).isEqualTo("system:node");
    }

    @Test
    void newStyleEventsAreStoredAsCoreEvents() {
        GenericStore events = store("events.k8s.io", "events");

        events.create(json("{'apiVersion': 'events.k8s.io/v1', 'kind': 'Event', 'metadata': {'name': 'web.1', 'namespace': 'default'},"
                + " 'eventTime': '2024-05-01T11:00:00.000000Z', 'reportingController': 'k4j.io/test', 'reportingInstance': 'test-1', 'action': 'Test',"
                + " 'reason': 'Tested', 'note': 'hello', 'regarding': {'kind': 'Pod', 'namespace': 'default', 'name': 'p'}, 'type': 'Normal'}"));

        assertThat(events.keyPrefix()).isEqualTo("/registry/events/");
        assertThat(events.get("default", "web.1").at("/note").asText()).isEqualTo("hello");
    }
}
