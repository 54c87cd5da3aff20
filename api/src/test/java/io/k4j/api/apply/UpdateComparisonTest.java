package io.k4j.api.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.resource.GroupVersionKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UpdateComparisonTest {
    private static final GroupVersionKind POD = new GroupVersionKind("", "v1", "Pod");
    private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");
    private static final GroupVersionKind CRON_JOB = new GroupVersionKind("batch", "v1", "CronJob");
    private static final GroupVersionKind LEASE = new GroupVersionKind("coordination.k8s.io", "v1", "Lease");
    private static final Set<String> ALWAYS_PRESENT = Set.of("metadata", "spec", "status", "template", "jobTemplate", "strategy", "updateStrategy", "containers");

    private static final String POD_JSON = """
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","labels":{"app":"a"},
             "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1","controller":true}],
             "managedFields":[{"manager":"x","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}}}]},
             "spec":{"containers":[{"name":"app","image":"nginx","ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}],
               "env":[{"name":"A","value":"1"}],"resources":{"requests":{"cpu":"10m"}}}],
               "volumes":[{"name":"v","emptyDir":{}}],"nodeSelector":{"zone":"a"},"tolerations":[{"key":"k","operator":"Exists"}],
               "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"In","values":["a","b"]}]}]}}}},
             "status":{"phase":"Pending","conditions":[{"type":"Ready","status":"False"}]}}
            """;
    private static final String DEPLOYMENT_JSON = """
            {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","finalizers":["a","b"]},
             "spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},"strategy":{"rollingUpdate":{"maxSurge":1}},
               "template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","args":["x",null]}]}}}}
            """;
    private static final String CRON_JOB_JSON = """
            {"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},
             "spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}],"restartPolicy":"Never"}}}}}}
            """;
    private static final String LEASE_JSON = """
            {"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l","namespace":"kube-node-lease"},
             "spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"renewTime":"2026-01-01T00:00:00.000000Z"}}
            """;

    private static final List<JsonNode> REPLACEMENTS = List.of(
            Json.nodeFactory().nullNode(), Json.object(), Json.nodeFactory().arrayNode(), Json.nodeFactory().textNode("x"),
            Json.nodeFactory().numberNode(80), Json.nodeFactory().numberNode(80.0), Json.nodeFactory().booleanNode(true),
            Json.read("{\"a\":null}".getBytes()), Json.read("{\"name\":\"app\",\"x\":null}".getBytes()), Json.read("[null,{\"b\":null}]".getBytes()));

    @Test
    void matchesComparingCopiesAsGoSeesThemForCreatesAndUpdates() {
        Random random = new Random(42);
        List<Case> cases = List.of(new Case(POD, POD_JSON), new Case(DEPLOYMENT, DEPLOYMENT_JSON), new Case(CRON_JOB, CRON_JOB_JSON), new Case(LEASE, LEASE_JSON));
        int compared = 0;
        for (Case sample : cases) {
            Shape shape = Shapes.builtin().forKind(sample.kind()).orElseThrow();
            ObjectNode original = (ObjectNode) Json.read(sample.json().getBytes());
            for (int round = 0; round < 150; round++) {
                ObjectNode live = mutate(original, random, 1 + random.nextInt(3));
                ObjectNode updated = mutate(random.nextBoolean() ? live : original, random, random.nextInt(4));
                for (Set<String> skipped : List.of(Set.<String>of(), Set.of("status"), Set.of("spec", "metadata"))) {
                    assertSame(null, updated, shape, skipped);
                    assertSame(live, updated, shape, skipped);
                    assertSame(updated, live, shape, skipped);
                    compared += 3;
                }
            }
        }
        assertThat(compared).isEqualTo(4 * 150 * 9);
    }

    @Test
    void aCreatedPodOwnsItsContainersButNotTheAlwaysPresentFieldsThemselves() {
        Shape shape = Shapes.builtin().forKind(POD).orElseThrow();
        ObjectNode pod = (ObjectNode) Json.read("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}
                """.getBytes());

        UpdateComparison comparison = UpdateComparison.compare(null, pod, shape, Set.of("status"));

        assertThat(comparison.changed().toFieldsV1()).isEqualTo(Json.read("""
                {"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{".":{},"f:a":{}},"f:name":{}},
                 "f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}}}
                """.getBytes()));
        assertThat(comparison.removed().isEmpty()).isTrue();
    }

    @Test
    void aLeaseRenewalChangesItsRenewTimeOnly() {
        Shape shape = Shapes.builtin().forKind(LEASE).orElseThrow();
        ObjectNode live = (ObjectNode) Json.read(LEASE_JSON.getBytes());
        ObjectNode renewed = live.deepCopy();
        ((ObjectNode) renewed.get("spec")).put("renewTime", "2026-01-01T00:00:10.000000Z");
        ((ObjectNode) renewed.get("metadata")).putNull("labels");

        UpdateComparison comparison = UpdateComparison.compare(live, renewed, shape, Set.of());

        assertThat(comparison.changed().toString()).isEqualTo(".spec.renewTime");
        assertThat(comparison.removed().isEmpty()).isTrue();
    }

    private record Case(GroupVersionKind kind, String json) {}

    private static void assertSame(ObjectNode live, ObjectNode updated, Shape shape, Set<String> skipped) {
        FieldSet reset = new FieldSet();
        skipped.forEach(name -> reset.insert(List.of(new PathElement.Field(name))));
        JsonNode before = live == null ? comparable(Json.object(), shape) : comparable(live, shape);
        TypedValues.Comparison expected = TypedValues.compare(before, comparable(updated, shape), shape);
        UpdateComparison actual = UpdateComparison.compare(live == null ? null : live.deepCopy(), updated.deepCopy(), shape, skipped);
        String context = "live " + live + "\nupdated " + updated + "\nskipped " + skipped;
        assertThat(actual.changed().paths()).as(context).isEqualTo(expected.modified().union(expected.added()).recursiveDifference(reset).paths());
        assertThat(actual.removed().paths()).as(context).isEqualTo(expected.removed().recursiveDifference(reset).paths());
    }

    /** A copy with some values at random positions replaced, nulled or removed. */
    private static ObjectNode mutate(ObjectNode object, Random random, int changes) {
        ObjectNode copy = object.deepCopy();
        for (int i = 0; i < changes; i++) {
            List<JsonNode> containers = new ArrayList<>();
            collectContainers(copy, containers);
            JsonNode container = containers.get(random.nextInt(containers.size()));
            JsonNode replacement = REPLACEMENTS.get(random.nextInt(REPLACEMENTS.size())).deepCopy();
            if (container instanceof ObjectNode target) {
                List<String> names = new ArrayList<>();
                target.fieldNames().forEachRemaining(names::add);
                int choice = random.nextInt(4);
                if (names.isEmpty() || choice == 0) {
                    target.set(random.nextBoolean() ? "extra" : List.of("spec", "status", "containers", "template", "metadata").get(random.nextInt(5)), replacement);
                } else if (choice == 1) {
                    target.remove(names.get(random.nextInt(names.size())));
                } else {
                    target.set(names.get(random.nextInt(names.size())), replacement);
                }
            } else if (container instanceof ArrayNode target) {
                int choice = random.nextInt(3);
                if (target.isEmpty() || choice == 0) {
                    target.add(target.isEmpty() ? replacement : target.get(random.nextInt(target.size())).deepCopy());
                } else if (choice == 1) {
                    target.remove(random.nextInt(target.size()));
                } else {
                    target.set(random.nextInt(target.size()), replacement);
                }
            }
        }
        return copy;
    }

    private static void collectContainers(JsonNode value, List<JsonNode> containers) {
        if (value.isContainerNode()) {
            containers.add(value);
            value.forEach(child -> collectContainers(child, containers));
        }
    }

    // The comparison as FieldManager made it before it walked the objects as they are: copies without managed
    // fields and nulls, with Go's always-present structs and lists filled in.

    private static JsonNode comparable(ObjectNode object, Shape shape) {
        ObjectNode copy = (ObjectNode) FieldManager.withoutNulls(object);
        if (copy.get("metadata") instanceof ObjectNode metadata) {
            metadata.remove("managedFields");
        }
        addAlwaysPresent(copy, shape);
        return copy;
    }

    private static void addAlwaysPresent(ObjectNode object, Shape shape) {
        if (!(shape instanceof Shape.Struct struct) || struct.atomic()) {
            return;
        }
        for (String name : ALWAYS_PRESENT) {
            Optional<Shape> field = struct.field(name);
            if (field.isPresent() && field.get() instanceof Shape.ListOf && !object.has(name)) {
                object.putArray(name);
            }
            if (field.isEmpty() || !(field.get() instanceof Shape.Struct)) {
                continue;
            }
            JsonNode value = object.get(name);
            if (value == null) {
                value = object.putObject(name);
            }
            if (value instanceof ObjectNode child) {
                addAlwaysPresent(child, field.get());
            }
        }
    }
}
