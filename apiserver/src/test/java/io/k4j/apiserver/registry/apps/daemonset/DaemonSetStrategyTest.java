package io.k4j.apiserver.registry.apps.daemonset;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.POD_TEMPLATES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class DaemonSetStrategyTest {
    private final DaemonSetStrategy strategy = new DaemonSetStrategy(type("apps", "daemonsets"), POD_TEMPLATES, AGES);

    private ObjectNode daemonSet() {
        ObjectNode object = json("{'metadata': {'name': 'agent', 'creationTimestamp': '2024-05-01T11:59:15Z'},"
                + " 'spec': {'selector': {'matchLabels': {'app': 'agent'}}, 'template': " + podTemplate("{'app': 'agent'}", "Always") + "}}");
        ((ObjectNode) object.at("/spec/template/spec")).putObject("nodeSelector").put("kubernetes.io/os", "linux");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsRollingUpdateOfOneUnavailableNoSurge() {
        ObjectNode object = daemonSet();

        assertThat(object.at("/spec/updateStrategy/type").asText()).isEqualTo("RollingUpdate");
        assertThat(object.at("/spec/updateStrategy/rollingUpdate/maxUnavailable").asInt()).isEqualTo(1);
        assertThat(object.at("/spec/updateStrategy/rollingUpdate/maxSurge").asInt()).isZero();
        assertThat(object.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void surgeAndUnavailabilityExcludeEachOther() {
        ObjectNode object = daemonSet();
        ((ObjectNode) object.at("/spec/updateStrategy/rollingUpdate")).put("maxSurge", "10%");
        assertThat(messages(strategy.validate(object)))
                .containsExactly("spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 10%: may not be set when maxUnavailable is non-zero");

        ((ObjectNode) object.at("/spec/updateStrategy/rollingUpdate")).put("maxSurge", 0).put("maxUnavailable", 0);
        assertThat(messages(strategy.validate(object)))
                .containsExactly("spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0");
    }

    @Test
    void rejectsMismatchedLabelsAndActiveDeadline() {
        ObjectNode object = daemonSet();
        ((ObjectNode) object.at("/spec/template/metadata/labels")).put("app", "other");
        ((ObjectNode) object.at("/spec/template/spec")).put("activeDeadlineSeconds", 10);

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`",
                "spec.template.spec.activeDeadlineSeconds: Invalid value: 10: activeDeadlineSeconds must be nil for daemons");
    }

    @Test
    void printsScheduledCountsAndNodeSelector() {
        ObjectNode object = daemonSet();
        object.putObject("status").put("desiredNumberScheduled", 3).put("currentNumberScheduled", 3).put("numberReady", 2)
                .put("updatedNumberScheduled", 3).put("numberAvailable", 2);

        assertThat(strategy.tableRow(object)).containsExactly("agent", 3L, 3L, 2L, 3L, 2L, "kubernetes.io/os=linux", "45s",
                "web,sidecar", "nginx:1.25,busybox", "app=agent");
        assertThat(strategy.tableColumns()).hasSize(11);
    }
}
