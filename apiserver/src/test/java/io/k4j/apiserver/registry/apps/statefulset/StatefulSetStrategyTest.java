package io.k4j.apiserver.registry.apps.statefulset;

import static io.k4j.apiserver.registry.groups.StrategyTesting.AGES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.POD_TEMPLATES;
import static io.k4j.apiserver.registry.groups.StrategyTesting.json;
import static io.k4j.apiserver.registry.groups.StrategyTesting.messages;
import static io.k4j.apiserver.registry.groups.StrategyTesting.podTemplate;
import static io.k4j.apiserver.registry.groups.StrategyTesting.type;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class StatefulSetStrategyTest {
    private final StatefulSetStrategy strategy = new StatefulSetStrategy(type("apps", "statefulsets"), POD_TEMPLATES, AGES);

    private ObjectNode statefulSet() {
        ObjectNode object = json("{'metadata': {'name': 'db', 'creationTimestamp': '2024-05-01T09:30:00Z'},"
                + " 'spec': {'serviceName': 'db', 'selector': {'matchLabels': {'app': 'db'}}, 'template': " + podTemplate("{'app': 'db'}", "Always") + ","
                + " 'volumeClaimTemplates': [{'metadata': {'name': 'data'}, 'spec': {'accessModes': ['ReadWriteOnce']}}]}}");
        strategy.applyDefaults(object);
        return object;
    }

    @Test
    void defaultsPolicyUpdateStrategyRetentionReplicasAndClaimTemplates() {
        ObjectNode object = statefulSet();

        assertThat(object.at("/spec/podManagementPolicy").asText()).isEqualTo("OrderedReady");
        assertThat(object.at("/spec/updateStrategy/type").asText()).isEqualTo("RollingUpdate");
        assertThat(object.at("/spec/updateStrategy/rollingUpdate/partition").asInt()).isZero();
        assertThat(object.at("/spec/persistentVolumeClaimRetentionPolicy/whenDeleted").asText()).isEqualTo("Retain");
        assertThat(object.at("/spec/persistentVolumeClaimRetentionPolicy/whenScaled").asText()).isEqualTo("Retain");
        assertThat(object.at("/spec/replicas").asInt()).isEqualTo(1);
        assertThat(object.at("/spec/revisionHistoryLimit").asInt()).isEqualTo(10);
        assertThat(object.at("/spec/volumeClaimTemplates/0/spec/volumeMode").asText()).isEqualTo("Filesystem");
        assertThat(object.at("/spec/volumeClaimTemplates/0/status/phase").asText()).isEqualTo("Pending");
        assertThat(messages(strategy.validate(object))).isEmpty();
    }

    @Test
    void containersMayMountTheVolumeClaimTemplates() {
        ObjectNode object = statefulSet();
        ObjectNode container = (ObjectNode) object.at("/spec/template/spec/containers/0");
        container.putArray("volumeMounts").addObject().put("name", "data").put("mountPath", "/var/lib/db");

        assertThat(messages(strategy.validate(object))).isEmpty();
        assertThat(object.at("/spec/template/spec/volumes").isMissingNode()).isTrue();

        container.withArray("volumeMounts").addObject().put("name", "missing").put("mountPath", "/other");
        assertThat(messages(strategy.validate(object))).singleElement().asString().contains("volumeMounts[1].name: Not found: \"missing\"");
    }

    @Test
    void rejectsUnknownPoliciesAndStrategies() {
        ObjectNode object = statefulSet();
        ((ObjectNode) object.get("spec")).put("podManagementPolicy", "Eager");
        ((ObjectNode) object.at("/spec/updateStrategy")).put("type", "OnDelete");
        ((ObjectNode) object.at("/spec/persistentVolumeClaimRetentionPolicy")).put("whenScaled", "Keep");

        assertThat(messages(strategy.validate(object))).containsExactly(
                "spec.podManagementPolicy: Invalid value: \"Eager\": must be 'OrderedReady' or 'Parallel'",
                "spec.updateStrategy.rollingUpdate: Invalid value: {\"partition\":0}: only allowed for updateStrategy 'RollingUpdate'",
                "spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: \"Keep\": supported values: \"Retain\", \"Delete\"");
    }

    @Test
    void onlySomeSpecFieldsMayChange() {
        ObjectNode old = statefulSet();
        ObjectNode scaled = old.deepCopy();
        ((ObjectNode) scaled.get("spec")).put("replicas", 3).put("minReadySeconds", 5);
        assertThat(messages(strategy.validateUpdate(scaled, old))).isEmpty();

        ObjectNode renamed = old.deepCopy();
        ((ObjectNode) renamed.get("spec")).put("serviceName", "other");
        assertThat(messages(strategy.validateUpdate(renamed, old))).containsExactly(
                "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
    }

    @Test
    void dropsMaxUnavailableWhileItsFeatureIsOff() {
        ObjectNode object = statefulSet();
        ((ObjectNode) object.at("/spec/updateStrategy/rollingUpdate")).put("maxUnavailable", 2);

        strategy.prepareForCreate(object);

        assertThat(object.at("/spec/updateStrategy/rollingUpdate/maxUnavailable").isMissingNode()).isTrue();
        assertThat(object.at("/metadata/generation").asLong()).isEqualTo(1);
    }

    @Test
    void printsReadyOverDesired() {
        ObjectNode object = statefulSet();
        ((ObjectNode) object.get("spec")).put("replicas", 3);
        object.putObject("status").put("readyReplicas", 1);

        assertThat(strategy.tableColumns()).extracting(column -> column.name()).containsExactly("Name", "Ready", "Age", "Containers", "Images");
        assertThat(strategy.tableRow(object)).containsExactly("db", "1/3", "150m", "web,sidecar", "nginx:1.25,busybox");
    }
}
