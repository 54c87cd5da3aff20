package io.k4j.apiserver.registry.apps.replicaset;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.POD_TEMPLATES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import java.util.Map;

class ReplicaSetStrategyTest {
    private final ReplicaSetStrategy strategy = new ReplicaSetStrategy(type("apps", "replicasets"), POD_TEMPLATES, AGES);

    private ObjectNode replicaSet(String restartPolicy) {
        ObjectNode object = json("{'metadata': {'name': 'web-7d9f', 'creationTimestamp': '2024-04-29T12:00:00Z'},"
                + " 'spec': {'selector': {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': ['web', 'api']}]},"
                + " 'template': " + podTemplate("{'app': 'web'}", restartPolicy) + "}}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsReplicasToOne() {
        assertThat(replicaSet("Always").at("/spec/replicas").asInt()).isEqualTo(1);
    }

    @Test
    void onlyRestartAlwaysAndNoActiveDeadline() {
        ObjectNode object = replicaSet("OnFailure");
        ((ObjectNode) object.at("/spec/template/spec")).put("activeDeadlineSeconds", 5);

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"",
                "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported");
    }

    @Test
    void validatesSelectorRequirements() {
        ObjectNode object = replicaSet("Always");
        ((ObjectNode) object.at("/spec/selector/matchExpressions/0")).put("operator", "Exists");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                "spec.selector: Invalid value: {\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Exists\",\"values\":[\"web\",\"api\"]}]}: invalid label selector");
    }

    @Test
    void statusCountersCannotExceedReplicas() {
        ObjectNode old = replicaSet("Always");
        ObjectNode updated = old.deepCopy();
        updated.putObject("status").put("replicas", 1).put("fullyLabeledReplicas", 2).put("observedGeneration", -1);

        assertThat(messages(ReplicaSetStrategy.validateStatusUpdate(updated, old))).containsExactly(
                "status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
                "status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas");
    }

    @Test
    void printsDesiredCurrentReadyAndSelector() {
        ObjectNode object = replicaSet("Always");
        object.putObject("status").put("replicas", 1).put("readyReplicas", 1);

        assertThat(strategy.tableColumns()).extracting(column -> column.name()).containsExactly(
                "Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector");
        assertThat(strategy.selectableFields(object)).isEqualTo(Map.of("status.replicas", "1"));
        assertThat(strategy.tableRow(object)).containsExactly("web-7d9f", 1L, 1L, 1L, "2d", "web,sidecar", "nginx:1.25,busybox", "app in (api,web)");
    }
}
