package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Codec;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusCause;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldManagerTest {
    private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
    private static final GroupVersionKind CONFIG_MAP = new GroupVersionKind("", "v1", "ConfigMap");
    private static final FieldManager.Target DEPLOYMENTS = new FieldManager.Target(DEPLOYMENT, "", FieldManager.topLevelFields("status"));
    private static final FieldManager.Target CONFIG_MAPS = new FieldManager.Target(CONFIG_MAP, "", new FieldSet());

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-02T03:04:05.678Z"));
    private final FieldManager fieldManager = new FieldManager(Shapes.builtin(), clock);

    private static final String WEB = """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: default
              labels: {app: web}
            spec:
              replicas: 2
              selector:
                matchLabels: {app: web}
              strategy:
                rollingUpdate: {maxSurge: 1}
              template:
                metadata:
                  labels: {app: web}
                spec:
                  containers:
                  - name: nginx
                    image: nginx:1.25
                    ports:
                    - containerPort: 80
            """;

    @Test
    void createRecordsEveryFieldForTheUpdaterAsUpstream() {
        ObjectNode created = yaml(WEB);
        fieldManager.update(null, created, DEPLOYMENTS, "kubectl-create");

        JsonNode entry = created.path("metadata").path("managedFields").get(0);
        assertThat(entry.path("manager").asText()).isEqualTo("kubectl-create");
        assertThat(entry.path("operation").asText()).isEqualTo("Update");
        assertThat(entry.path("apiVersion").asText()).isEqualTo("apps/v1");
        assertThat(entry.path("time").asText()).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(entry.path("fieldsType").asText()).isEqualTo("FieldsV1");
        // Go's always-present fields (spec, template, strategy, containers) are not marked; maps, lists and pointers new to the object are
        assertThat(entry.path("fieldsV1")).isEqualTo(Json.read("""
                {"f:metadata":{"f:labels":{".":{},"f:app":{}}},
                 "f:spec":{"f:replicas":{},"f:selector":{},
                   "f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{}}},
                   "f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
                     "f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},
                       "f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}
                """));
        assertThat(Json.writeString(entry)).startsWith("{\"manager\":\"kubectl-create\",\"operation\":\"Update\",\"apiVersion\":\"apps/v1\",\"time\":");
    }

    @Test
    void repeatedCreatesOfOneObjectRecordWhatTheFirstDidWithTheirOwnTime() {
        ObjectNode first = yaml(WEB);
        fieldManager.update(null, first, DEPLOYMENTS, "kubectl-create");
        JsonNode firstFields = first.path("metadata").path("managedFields").get(0).path("fieldsV1");

        // The third create of the same object (apart from its name and uid) takes the set remembered from the second.
        clock.set(Instant.parse("2026-01-02T03:04:09Z"));
        List<ObjectNode> repeated = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ObjectNode again = yaml(WEB.replace("name: web", "name: web-" + i));
            ((ObjectNode) again.path("metadata")).put("uid", "uid-" + i);
            fieldManager.update(null, again, DEPLOYMENTS, "kubectl-create");
            repeated.add(again);
        }
        for (ObjectNode again : repeated) {
            JsonNode entry = again.path("metadata").path("managedFields").get(0);
            assertThat(entry.path("fieldsV1")).isEqualTo(firstFields);
            assertThat(entry.path("time").asText()).isEqualTo("2026-01-02T03:04:09Z");
        }

        // Another manager, another value or another field: each is compared, not taken from the remembered set.
        ObjectNode byOther = yaml(WEB);
        fieldManager.update(null, byOther, DEPLOYMENTS, "other");
        assertThat(byOther.path("metadata").path("managedFields").get(0).path("manager").asText()).isEqualTo("other");
        ObjectNode withLabel = yaml(WEB.replace("labels: {app: web}\nspec:", "labels: {app: web, tier: front}\nspec:"));
        fieldManager.update(null, withLabel, DEPLOYMENTS, "kubectl-create");
        assertThat(withLabel.path("metadata").path("managedFields").get(0).path("fieldsV1").path("f:metadata").path("f:labels").has("f:tier")).isTrue();
        ObjectNode withoutReplicas = yaml(WEB.replace("  replicas: 2\n", ""));
        fieldManager.update(null, withoutReplicas, DEPLOYMENTS, "kubectl-create");
        assertThat(withoutReplicas.path("metadata").path("managedFields").get(0).path("fieldsV1").path("f:spec").has("f:replicas")).isFalse();
        ObjectNode sameAgain = yaml(WEB);
        fieldManager.update(null, sameAgain, DEPLOYMENTS, "kubectl-create");
        assertThat(sameAgain.path("metadata").path("managedFields").get(0).path("fieldsV1")).isEqualTo(firstFields);
    }

    @Test
    void updateAddsChangedFieldsAndTakesThemFromOthers() {
        ObjectNode live = yaml(WEB);
        fieldManager.update(null, live, DEPLOYMENTS, "kubectl-create");
        ObjectNode scaled = live.deepCopy();
        ((ObjectNode) scaled.path("spec")).put("replicas", 5);
        ((ObjectNode) scaled.path("metadata").path("labels")).remove("app");
        clock.set(Instant.parse("2026-01-02T04:00:00Z"));

        fieldManager.update(live, scaled, DEPLOYMENTS, "kubectl-edit");

        ManagedFields managed = ManagedFields.decode(scaled.path("metadata").path("managedFields"));
        FieldSet created = managed.get(new Manager("kubectl-create", Manager.Operation.UPDATE, "apps/v1", "")).orElseThrow().fields();
        FieldSet edited = managed.get(new Manager("kubectl-edit", Manager.Operation.UPDATE, "apps/v1", "")).orElseThrow().fields();
        assertThat(edited.toString()).isEqualTo(".spec.replicas");
        assertThat(created.toString().lines()).doesNotContain(".spec.replicas", ".metadata.labels.app").contains(".spec.template.metadata.labels.app");
        assertThat(scaled.path("metadata").path("managedFields").get(1).path("time").asText()).isEqualTo("2026-01-02T04:00:00Z");
    }

    @Test
    void anUpdateThatChangesNothingAddsNoEntry() {
        ObjectNode live = yaml(WEB);
        fieldManager.update(null, live, DEPLOYMENTS, "kubectl-create");
        ObjectNode same = live.deepCopy();
        ((ObjectNode) same.path("metadata")).put("resourceVersion", "42");

        fieldManager.update(live, same, DEPLOYMENTS, "other");

        assertThat(same.path("metadata").path("managedFields")).hasSize(1);
    }

    @Test
    void objectsWithoutManagedFieldsStayUntrackedOnUpdate() {
        ObjectNode live = yaml(WEB);
        ObjectNode updated = live.deepCopy();
        ((ObjectNode) updated.path("spec")).put("replicas", 9);

        fieldManager.update(live, updated, DEPLOYMENTS, "kubectl-edit");

        assertThat(updated.path("metadata").has("managedFields")).isFalse();
    }

    @Test
    void applyCreatesWithTheApplierOwningExactlyItsConfiguration() {
        ObjectNode applied = fieldManager.apply(null, yaml("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings, labels: {a: "1"}}
                data: {k: v}
                """), CONFIG_MAPS, "tool", false);

        assertThat(applied.path("data").path("k").asText()).isEqualTo("v");
        JsonNode entry = applied.path("metadata").path("managedFields").get(0);
        assertThat(entry.path("operation").asText()).isEqualTo("Apply");
        assertThat(entry.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(entry.path("fieldsV1")).isEqualTo(Json.read("{\"f:data\":{\"f:k\":{}},\"f:metadata\":{\"f:labels\":{\"f:a\":{}}}}"));
    }

    @Test
    void conflictingApplyFailsWithUpstreamMessageAndCauses() {
        ObjectNode live = liveDeploymentBy("kubectl-client-side-apply");

        assertThatThrownBy(() -> fieldManager.apply(live, yaml(WEB.replace("replicas: 2", "replicas: 3")), DEPLOYMENTS, "other", false))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(409);
                    assertThat(e.getMessage()).isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using apps/v1: .spec.replicas");
                    assertThat(e.causes()).containsExactly(new StatusCause("FieldManagerConflict", "conflict with \"kubectl-client-side-apply\" using apps/v1", ".spec.replicas"));
                    assertThat(Json.writeString(e.toStatus())).contains("\"reason\":\"Conflict\"", "\"code\":409");
                });
    }

    @Test
    void severalConflictsAreListedByManager() {
        ObjectNode live = liveDeploymentBy("kubectl-client-side-apply");

        assertThatThrownBy(() -> fieldManager.apply(live, yaml(WEB.replace("replicas: 2", "replicas: 3").replace("nginx:1.25", "nginx:1.26")), DEPLOYMENTS, "other", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("""
                        Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using apps/v1:
                        - .spec.replicas
                        - .spec.template.spec.containers[name="nginx"].image"""));
    }

    @Test
    void forceTakesOwnershipAndSameValuesAreShared() {
        ObjectNode live = liveDeploymentBy("kubectl-client-side-apply");

        ObjectNode applied = fieldManager.apply(live, yaml(WEB.replace("replicas: 2", "replicas: 3")), DEPLOYMENTS, "other", true);

        assertThat(applied.path("spec").path("replicas").asInt()).isEqualTo(3);
        ManagedFields managed = ManagedFields.decode(applied.path("metadata").path("managedFields"));
        FieldSet updater = managed.get(new Manager("kubectl-client-side-apply", Manager.Operation.UPDATE, "apps/v1", "")).orElseThrow().fields();
        FieldSet applier = managed.get(new Manager("other", Manager.Operation.APPLY, "", "")).orElseThrow().fields();
        assertThat(updater.toString()).doesNotContain(".spec.replicas").contains(".spec.template.spec.containers[name=\"nginx\"].image");
        assertThat(applier.toString()).contains(".spec.replicas", ".spec.template.spec.containers[name=\"nginx\"].image");
        // appliers come first in managedFields
        assertThat(applied.path("metadata").path("managedFields").get(0).path("manager").asText()).isEqualTo("other");
    }

    @Test
    void reapplyingRemovesWhatTheApplierNoLongerAppliesUnlessSomeoneElseOwnsIt() {
        ObjectNode first = fieldManager.apply(null, yaml("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings, labels: {a: "1", b: "2", c: "3"}}
                data: {k: v, gone: x}
                """), CONFIG_MAPS, "tool", false);
        ObjectNode shared = fieldManager.apply(first, yaml("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings, labels: {c: "3"}}
                """), CONFIG_MAPS, "other-tool", false);

        ObjectNode second = fieldManager.apply(shared, yaml("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: settings, labels: {a: "1"}}
                data: {k: v}
                """), CONFIG_MAPS, "tool", false);

        assertThat(second.path("metadata").path("labels")).isEqualTo(Json.read("{\"a\":\"1\",\"c\":\"3\"}"));
        assertThat(second.path("data")).isEqualTo(Json.read("{\"k\":\"v\"}"));
    }

    @Test
    void reapplyingRemovesListEntriesButKeepsUpdatersFieldsAndEntries() {
        ObjectNode live = fieldManager.apply(null, yaml(WEB.replace("      - name: nginx\n", "      - name: sidecar\n        image: busybox\n      - name: nginx\n")),
                DEPLOYMENTS, "tool", false);
        ObjectNode annotated = live.deepCopy();
        ((ObjectNode) annotated.path("metadata")).putObject("annotations").put("note", "kept");
        fieldManager.update(live, annotated, DEPLOYMENTS, "kubectl-annotate");

        ObjectNode reapplied = fieldManager.apply(annotated, yaml(WEB), DEPLOYMENTS, "tool", false);

        ArrayNode containers = (ArrayNode) reapplied.path("spec").path("template").path("spec").path("containers");
        List<String> names = new ArrayList<>();
        containers.forEach(container -> names.add(container.path("name").asText()));
        assertThat(names).containsExactly("nginx");
        assertThat(reapplied.path("metadata").path("annotations").path("note").asText()).isEqualTo("kept");
    }

    @Test
    void mergesAssociativeListsByKeyAndKeepsEntriesOthersAdded() {
        ObjectNode live = liveDeploymentBy("kubectl-client-side-apply");
        ObjectNode withSidecar = live.deepCopy();
        ((ArrayNode) withSidecar.path("spec").path("template").path("spec").path("containers")).addObject().put("name", "sidecar").put("image", "busybox");
        fieldManager.update(live, withSidecar, DEPLOYMENTS, "kubectl-patch");

        ObjectNode applied = fieldManager.apply(withSidecar, yaml("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web}
                spec:
                  template:
                    spec:
                      containers:
                      - name: nginx
                        image: nginx:1.25
                        env:
                        - {name: A, value: "1"}
                """), DEPLOYMENTS, "env-tool", false);

        JsonNode containers = applied.path("spec").path("template").path("spec").path("containers");
        assertThat(containers).hasSize(2);
        assertThat(containers.get(0).path("env").get(0).path("name").asText()).isEqualTo("A");
        assertThat(containers.get(0).path("ports")).hasSize(1);
        assertThat(containers.get(1).path("name").asText()).isEqualTo("sidecar");
        assertThat(applied.path("spec").path("replicas").asInt()).isEqualTo(2);
    }

    @Test
    void atomicFieldsAreReplacedAsAWhole() {
        ObjectNode live = liveDeploymentBy("kubectl-client-side-apply");

        ObjectNode applied = fieldManager.apply(live, yaml("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web}
                spec:
                  template:
                    spec:
                      containers:
                      - name: nginx
                        command: [sh]
                """), DEPLOYMENTS, "tool", false);
        ObjectNode reapplied = fieldManager.apply(applied, yaml("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web}
                spec:
                  template:
                    spec:
                      containers:
                      - name: nginx
                        command: [sleep, "10"]
                """), DEPLOYMENTS, "tool", false);

        assertThat(reapplied.path("spec").path("template").path("spec").path("containers").get(0).path("command")).isEqualTo(Json.read("[\"sleep\",\"10\"]"));
        assertThat(Json.writeString(reapplied.path("metadata").path("managedFields").get(0).path("fieldsV1"))).contains("\"f:command\":{}");
    }

    @Test
    void kubectlTakesOverFieldsItAppliedClientSide() {
        ObjectNode live = yaml(WEB);
        ((ObjectNode) live.path("metadata")).putObject("annotations").put("kubectl.kubernetes.io/last-applied-configuration", Json.writeString(yaml(WEB)) + "\n");
        fieldManager.update(null, live, DEPLOYMENTS, "kubectl-client-side-apply");

        ObjectNode applied = fieldManager.apply(live, yaml(WEB.replace("replicas: 2", "replicas: 3")), DEPLOYMENTS, "kubectl", false);

        assertThat(applied.path("spec").path("replicas").asInt()).isEqualTo(3);
        String lastApplied = applied.path("metadata").path("annotations").path("kubectl.kubernetes.io/last-applied-configuration").asText();
        assertThat(Json.read(lastApplied).path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThatThrownBy(() -> fieldManager.apply(live, yaml(WEB.replace("replicas: 2", "replicas: 3")), DEPLOYMENTS, "someone-else", false))
                .isInstanceOf(StatusException.class);
    }

    @Test
    void rejectsConfigurationsOfAnotherKindWithManagedFieldsOrUnknownFields() {
        assertThatThrownBy(() -> fieldManager.apply(null, yaml("{apiVersion: apps/v1, kind: Deploymen}"), DEPLOYMENTS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("invalid object type: apps/v1, Kind=Deploymen"));
        assertThatThrownBy(() -> fieldManager.apply(null, yaml("{apiVersion: v1, kind: Deployment}"), DEPLOYMENTS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("invalid object type: /v1, Kind=Deployment"));
        assertThatThrownBy(() -> fieldManager.apply(null, yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: x, managedFields: []}}"), CONFIG_MAPS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage()).isEqualTo("metadata.managedFields must be nil"));
        assertThatThrownBy(() -> fieldManager.apply(null, yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: ns}, colour: blue}"), CONFIG_MAPS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> {
                    assertThat(e.code()).isEqualTo(500);
                    assertThat(e.getMessage()).isEqualTo("failed to create typed patch object (ns/x; /v1, Kind=ConfigMap): .colour: field not declared in schema");
                });
        assertThatThrownBy(() -> fieldManager.apply(null, yaml(WEB.replace("image: nginx:1.25", "image: nginx:1.25\n      - name: nginx")), DEPLOYMENTS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage())
                        .endsWith(".spec.template.spec.containers: duplicate entries for key [name=\"nginx\"]"));
    }

    @Test
    void theFirstApplyToAnUntrackedObjectConflictsWithBeforeFirstApply() {
        ObjectNode untracked = yaml(WEB);

        assertThatThrownBy(() -> fieldManager.apply(untracked, yaml(WEB.replace("replicas: 2", "replicas: 3")), DEPLOYMENTS, "tool", false))
                .isInstanceOfSatisfying(StatusException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("Apply failed with 1 conflict: conflict with \"before-first-apply\" using apps/v1: .spec.replicas"));
        ObjectNode applied = fieldManager.apply(untracked, yaml(WEB), DEPLOYMENTS, "tool", false);
        assertThat(managersOf(applied)).containsExactly("tool", FieldManager.BEFORE_FIRST_APPLY);
    }

    @Test
    void statusIsNotOwnedThroughTheMainResource() {
        ObjectNode applied = fieldManager.apply(null, yaml(WEB + "status: {replicas: 7}\n"), DEPLOYMENTS, "tool", false);

        assertThat(Json.writeString(applied.path("metadata").path("managedFields"))).doesNotContain("f:status");
    }

    @Test
    void capsUpdateManagers() {
        ObjectNode live = yaml(WEB);
        fieldManager.update(null, live, DEPLOYMENTS, "creator");
        for (int i = 0; i < 12; i++) {
            ObjectNode next = live.deepCopy();
            ((ObjectNode) next.path("metadata").path("labels")).put("l" + i, "v");
            clock.set(clock.instant().plusSeconds(10));
            fieldManager.update(live, next, DEPLOYMENTS, "writer-" + i);
            live = next;
        }

        JsonNode managedFields = live.path("metadata").path("managedFields");
        assertThat(managedFields).hasSize(FieldManager.MAX_UPDATE_MANAGERS);
        List<String> managers = new ArrayList<>();
        managedFields.forEach(entry -> managers.add(entry.path("manager").asText()));
        assertThat(managers).contains(FieldManager.ANCIENT_CHANGES, "writer-11").doesNotContain("creator");
    }

    private static List<String> managersOf(ObjectNode object) {
        List<String> managers = new ArrayList<>();
        object.path("metadata").path("managedFields").forEach(entry -> managers.add(entry.path("manager").asText()));
        return managers;
    }

    private ObjectNode liveDeploymentBy(String manager) {
        ObjectNode live = yaml(WEB);
        fieldManager.update(null, live, DEPLOYMENTS, manager);
        ((ObjectNode) live.path("metadata")).put("resourceVersion", "7");
        return live;
    }

    private static ObjectNode yaml(String text) {
        return (ObjectNode) Codec.decode(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), Codec.Format.YAML).value();
    }

    /** A clock tests move by hand. */
    private static final class MutableClock implements InstantSource {
        private Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
