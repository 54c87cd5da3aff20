package io.k4j.apiserver.registry.scale;

import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.authentication.UserInfo;
import io.k4j.apiserver.registry.generic.ObjectStore;
import io.k4j.apiserver.registry.generic.SubresourceHandler.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ScaleSubresourceTest {
    private static final UserInfo USER = UserInfo.of("admin", List.of("system:masters"));

    /** One object held in memory; every write bumps its resourceVersion, as storage would. */
    private static final class SingleObjectStore implements ObjectStore {
        private final ResourceType type;
        private ObjectNode object;
        private final List<String> writes = new ArrayList<>();

        SingleObjectStore(ResourceType type, ObjectNode object) {
            this.type = type;
            this.object = object;
        }

        @Override
        public ResourceType type() {
            return type;
        }

        @Override
        public synchronized ObjectNode get(String namespace, String name) {
            return object.deepCopy();
        }

        @Override
        public List<ObjectNode> list(String namespace) {
            return List.of(object.deepCopy());
        }

        @Override
        public ObjectNode create(ObjectNode created) {
            throw new UnsupportedOperationException("create");
        }

        @Override
        public synchronized ObjectNode guaranteedUpdate(String namespace, String name, String subresource, UnaryOperator<ObjectNode> tryUpdate) {
            ObjectNode updated = tryUpdate.apply(object.deepCopy());
            long version = Long.parseLong(object.at("/metadata/resourceVersion").asText());
            ((ObjectNode) updated.get("metadata")).put("resourceVersion", String.valueOf(version + 1));
            writes.add(subresource);
            object = updated;
            return object.deepCopy();
        }

        @Override
        public void delete(String namespace, String name) {
            throw new UnsupportedOperationException("delete");
        }
    }

    private final SingleObjectStore deployments = new SingleObjectStore(type("apps", "deployments"), json(
            "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u-1', 'resourceVersion': '7', 'creationTimestamp': '2024-05-01T11:00:00Z'},"
                    + " 'spec': {'replicas': 2, 'selector': {'matchLabels': {'app': 'web', 'tier': 'front'}}}, 'status': {'replicas': 2}}"));
    private final ScaleSubresource scale = ScaleSubresource.forLabelSelector();

    private Request request(boolean dryRun) {
        return new Request(deployments, "default", "web", USER, dryRun);
    }

    @Test
    void readsTheParentAsAnAutoscalingV1Scale() {
        assertThat(scale.get(request(false)).toString()).isEqualTo(json("{'kind': 'Scale', 'apiVersion': 'autoscaling/v1',"
                + " 'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u-1', 'resourceVersion': '7', 'creationTimestamp': '2024-05-01T11:00:00Z'},"
                + " 'spec': {'replicas': 2}, 'status': {'replicas': 2, 'selector': 'app=web,tier=front'}}").toString());
        assertThat(scale.subresource()).isEqualTo("scale");
        assertThat(scale.apiVersion() + " " + scale.kind()).isEqualTo("autoscaling/v1 Scale");
    }

    @Test
    void writesTheDesiredReplicasThroughTheMainResource() {
        ObjectNode result = scale.update(request(false), json("{'metadata': {'name': 'web', 'resourceVersion': '7'}, 'spec': {'replicas': 5}}"));

        assertThat(result.at("/spec/replicas").asLong()).isEqualTo(5);
        assertThat(result.at("/metadata/resourceVersion").asText()).isEqualTo("8");
        assertThat(deployments.get("default", "web").at("/spec/replicas").asLong()).isEqualTo(5);
        assertThat(deployments.writes).containsExactly("");
    }

    @Test
    void aScaleWithoutResourceVersionAlwaysApplies() {
        scale.update(request(false), json("{'spec': {'replicas': 1}}"));

        assertThat(deployments.get("default", "web").at("/spec/replicas").asLong()).isEqualTo(1);
    }

    @Test
    void aStaleResourceVersionIsAConflict() {
        assertThatThrownBy(() -> scale.update(request(false), json("{'metadata': {'resourceVersion': '6'}, 'spec': {'replicas': 5}}")))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    assertThat(e.getMessage()).isEqualTo("Operation cannot be fulfilled on deployments.apps \"web\": "
                            + "the object has been modified; please apply your changes to the latest version and try again");
                });
        assertThat(deployments.writes).isEmpty();
    }

    @Test
    void negativeReplicasAreInvalid() {
        assertThatThrownBy(() -> scale.update(request(false), json("{'spec': {'replicas': -1}}")))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).isEqualTo("Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
                });
    }

    @Test
    void dryRunChangesNothing() {
        ObjectNode result = scale.update(request(true), json("{'spec': {'replicas': 4}}"));

        assertThat(result.at("/spec/replicas").asLong()).isEqualTo(4);
        assertThat(deployments.writes).isEmpty();
        assertThat(deployments.get("default", "web").at("/spec/replicas").asLong()).isEqualTo(2);
    }

    @Test
    void replicationControllersSelectWithALabelMap() {
        ObjectNode controller = json("{'metadata': {'name': 'rc'}, 'spec': {'replicas': 3, 'selector': {'b': '2', 'a': '1'}}, 'status': {'replicas': 1}}");

        assertThat(ScaleSubresource.forLabelMap().scaleOf(controller).at("/status/selector").asText()).isEqualTo("a=1,b=2");
    }
}
