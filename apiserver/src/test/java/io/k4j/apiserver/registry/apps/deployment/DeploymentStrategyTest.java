package io.k4j.apiserver.registry.apps.deployment;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.POD_TEMPLATES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.generic.StatusStrategy;
import org.junit.jupiter.api.Test;

class DeploymentStrategyTest {
    private final DeploymentStrategy strategy = new DeploymentStrategy(type("apps", "deployments"), POD_TEMPLATES, AGES);

    private static ObjectNode deployment(String selectorLabels, String templateLabels) {
        return json("{'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'web', 'namespace': 'default',"
                + " 'creationTimestamp': '2024-05-01T11:55:00Z'},"
                + " 'spec': {'selector': {'matchLabels': " + selectorLabels + "}, 'template': " + podTemplate(templateLabels, "Always") + "}}");
    }

    private ObjectNode defaulted(ObjectNode object) {
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsReplicasStrategyHistoryDeadlineAndPodTemplate() {
        ObjectNode object = json("{'metadata': {'name': 'web'}, 'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx'}]}}}}");

        strategy.applyDefaults(object);

        assertThat(object.at("/spec/replicas").asInt()).isEqualTo(1);
        assertThat(object.at("/spec/strategy/type").asText()).isEqualTo("RollingUpdate");
        assertThat(object.at("/spec/strategy/rollingUpdate/maxUnavailable").asText()).isEqualTo("25%");
        assertThat(object.at("/spec/strategy/rollingUpdate/maxSurge").asText()).isEqualTo("25%");
        assertThat(object.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
        assertThat(object.at("/spec/progressDeadlineSeconds").asInt()).isEqualTo(600);
        assertThat(object.at("/spec/template/spec/restartPolicy").asText()).isEqualTo("Always");
        assertThat(object.at("/spec/template/spec/containers/0/imagePullPolicy").asText()).isEqualTo("Always");
    }

    @Test
    void defaultsDoNotTouchRecreateOrExplicitValues() {
        ObjectNode object = json("{'spec': {'replicas': 0, 'strategy': {'type': 'Recreate'}}}");

        strategy.applyDefaults(object);

        assertThat(object.at("/spec/replicas").asInt()).isZero();
        assertThat(object.at("/spec/strategy/rollingUpdate").isMissingNode()).isTrue();
    }

    @Test
    void acceptsAValidDeployment() {
        assertThat(messages(strategy.validate(defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"))))).isEmpty();
    }

    @Test
    void rejectsASelectorThatDoesNotMatchTheTemplate() {
        assertThat(messages(strategy.validate(defaulted(deployment("{'app': 'web'}", "{'app': 'other'}")))))
                .containsExactly("spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`");
    }

    @Test
    void rejectsMissingAndEmptySelectors() {
        ObjectNode missing = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) missing.get("spec")).remove("selector");
        assertThat(messages(strategy.validate(missing))).containsExactly("spec.selector: Required value");

        assertThat(messages(strategy.validate(defaulted(deployment("{}", "{'app': 'web'}")))))
                .containsExactly("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
                        + "empty selector is invalid for deployment");
    }

    @Test
    void rejectsNegativeReplicasAndZeroSurgeWithZeroUnavailability() {
        ObjectNode object = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) object.get("spec")).put("replicas", -1);
        ((ObjectNode) object.at("/spec/strategy/rollingUpdate")).put("maxUnavailable", 0).put("maxSurge", "0%");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0");
    }

    @Test
    void rejectsBadPercentagesAndRollingUpdateWithRecreate() {
        ObjectNode object = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) object.at("/spec/strategy/rollingUpdate")).put("maxUnavailable", "150%").put("maxSurge", "x");
        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: x: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 150%: must not be greater than 100%");

        ((ObjectNode) object.at("/spec/strategy")).put("type", "Recreate");
        assertThat(messages(strategy.validate(object)))
                .containsExactly("spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'");
    }

    @Test
    void rejectsAProgressDeadlineNotAboveMinReadySeconds() {
        ObjectNode object = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) object.get("spec")).put("minReadySeconds", 600);

        assertThat(messages(strategy.validate(object))).containsExactly("spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds");
    }

    @Test
    void theSelectorIsImmutable() {
        ObjectNode old = defaulted(deployment("{'app': 'web'}", "{'app': 'web', 'tier': 'front'}"));
        ObjectNode updated = defaulted(deployment("{'app': 'web', 'tier': 'front'}", "{'app': 'web', 'tier': 'front'}"));

        assertThat(messages(strategy.validateUpdate(updated, old)))
                .containsExactly("spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"front\"}, "
                        + "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
    }

    @Test
    void createClearsStatusAndStartsAtGenerationOne() {
        ObjectNode object = deployment("{'app': 'web'}", "{'app': 'web'}");
        object.putObject("status").put("replicas", 3);

        strategy.prepareForCreate(object);

        assertThat(object.has("status")).isFalse();
        assertThat(object.at("/metadata/generation").asLong()).isEqualTo(1);
    }

    @Test
    void updateKeepsStatusAndBumpsGenerationOnSpecOrAnnotationChanges() {
        ObjectNode old = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) old.get("metadata")).put("generation", 4);
        old.putObject("status").put("replicas", 1);

        ObjectNode sameSpec = old.deepCopy();
        sameSpec.putObject("status").put("replicas", 9);
        ((ObjectNode) sameSpec.get("metadata")).putObject("labels").put("team", "a");
        strategy.prepareForUpdate(sameSpec, old);
        assertThat(sameSpec.at("/status/replicas").asInt()).isEqualTo(1);
        assertThat(sameSpec.at("/metadata/generation").asLong()).isEqualTo(4);

        ObjectNode scaled = old.deepCopy();
        ((ObjectNode) scaled.get("spec")).put("replicas", 5);
        strategy.prepareForUpdate(scaled, old);
        assertThat(scaled.at("/metadata/generation").asLong()).isEqualTo(5);

        ObjectNode annotated = old.deepCopy();
        ((ObjectNode) annotated.get("metadata")).putObject("annotations").put("note", "x");
        strategy.prepareForUpdate(annotated, old);
        assertThat(annotated.at("/metadata/generation").asLong()).isEqualTo(5);
    }

    @Test
    void statusUpdatesKeepSpecAndLabelsAndCheckCounters() {
        StatusStrategy status = new StatusStrategy(strategy, DeploymentStrategy::validateStatusUpdate, true);
        ObjectNode old = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) old.get("metadata")).put("generation", 2);
        ObjectNode updated = old.deepCopy();
        ((ObjectNode) updated.get("spec")).put("replicas", 7);
        ((ObjectNode) updated.get("metadata")).put("generation", 9).putObject("labels").put("x", "y");
        updated.putObject("status").put("replicas", 2).put("readyReplicas", 3).put("availableReplicas", 1);

        status.prepareForUpdate(updated, old);

        assertThat(updated.at("/spec/replicas").asInt()).isEqualTo(1);
        assertThat(updated.at("/metadata/generation").asLong()).isEqualTo(2);
        assertThat(updated.at("/metadata/labels").isMissingNode()).isTrue();
        assertThat(updated.at("/status/replicas").asInt()).isEqualTo(2);
        assertThat(messages(status.validateUpdate(updated, old)))
                .containsExactly("status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas");
    }

    @Test
    void printsUpstreamsColumnsAndRow() {
        ObjectNode object = defaulted(deployment("{'app': 'web'}", "{'app': 'web'}"));
        ((ObjectNode) object.get("spec")).put("replicas", 3);
        object.putObject("status").put("readyReplicas", 2).put("updatedReplicas", 3).put("availableReplicas", 2);

        assertThat(strategy.tableColumns()).extracting(column -> column.name() + "/" + column.priority()).containsExactly(
                "Name/0", "Ready/0", "Up-to-date/0", "Available/0", "Age/0", "Containers/1", "Images/1", "Selector/1");
        assertThat(strategy.tableRow(object)).containsExactly("web", "2/3", 3L, 2L, "5m", "web,sidecar", "nginx:1.25,busybox", "app=web");
    }
}
