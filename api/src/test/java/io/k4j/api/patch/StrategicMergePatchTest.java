package io.k4j.api.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Cases adapted from upstream's strategic merge patch tests (apply of a three-way patch to the current object),
 * with upstream's abstract fields mapped onto real ones: {@code mergingList} onto {@code spec.containers} (merge
 * key {@code name}), {@code mergingIntList} onto {@code metadata.finalizers} (merged set of scalars),
 * {@code nonMergingIntList} onto {@code args} (replaced), {@code retainKeysMap} onto a Deployment's
 * {@code spec.strategy} and the pod's {@code volumes}.
 */
class StrategicMergePatchTest {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final GroupVersionKind POD = new GroupVersionKind("", "v1", "Pod");
    private static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");

    private final StrategicMergePatch patcher = StrategicMergePatch.builtin();

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("delete field from nested map", POD, """
                        metadata: {labels: {key1: "1", key2: "1", other: a}}
                        """, """
                        metadata: {labels: {key2: null}}
                        """, """
                        metadata: {labels: {key1: "1", other: a}}
                        """),
                Arguments.of("delete all fields from map", POD, """
                        metadata: {labels: {name: "1", value: "1", other: a}}
                        """, """
                        metadata: {labels: {name: null, value: null}}
                        """, """
                        metadata: {labels: {other: a}}
                        """),
                Arguments.of("replace list of scalars", POD, """
                        spec: {containers: [{name: c, args: ["1", "2"]}]}
                        """, """
                        spec: {containers: [{name: c, args: ["2", "3"]}]}
                        """, """
                        spec: {containers: [{name: c, args: ["2", "3"]}]}
                        """),
                Arguments.of("delete all maps from merging list", POD, """
                        spec: {containers: [{name: "1", workingDir: a}, {name: "2", workingDir: b}]}
                        """, """
                        spec: {containers: [{name: "1", $patch: delete}, {name: "2", $patch: delete}]}
                        """, """
                        spec: {containers: []}
                        """),
                Arguments.of("delete all maps from empty merging list", POD, """
                        spec: {containers: []}
                        """, """
                        spec: {containers: [{name: "1", $patch: delete}, {name: "2", $patch: delete}]}
                        """, """
                        spec: {containers: []}
                        """),
                Arguments.of("defined null values remove current fields", POD, """
                        metadata: {labels: {name: original-name, value: original-value, other: current-other}}
                        """, """
                        metadata: {labels: {name: modified-name, value: null}}
                        """, """
                        metadata: {labels: {name: modified-name, other: current-other}}
                        """),
                Arguments.of("delete items in lists of scalars", POD, """
                        metadata: {finalizers: ["1", "2", "3", "4"]}
                        """, """
                        metadata: {$setElementOrder/finalizers: ["1", "2"], $deleteFromPrimitiveList/finalizers: ["3"]}
                        """, """
                        metadata: {finalizers: ["1", "2", "4"]}
                        """),
                Arguments.of("delete all duplicate items in lists of scalars", POD, """
                        metadata: {finalizers: ["1", "2", "3", "3", "4"]}
                        """, """
                        metadata: {$setElementOrder/finalizers: ["1", "2"], $deleteFromPrimitiveList/finalizers: ["3"]}
                        """, """
                        metadata: {finalizers: ["1", "2", "4"]}
                        """),
                Arguments.of("add and delete items in lists of scalars", POD, """
                        metadata: {finalizers: ["1", "2", "3", "4"]}
                        """, """
                        metadata: {$setElementOrder/finalizers: ["1", "2", "4"], $deleteFromPrimitiveList/finalizers: ["3"]}
                        """, """
                        metadata: {finalizers: ["1", "2", "4"]}
                        """),
                Arguments.of("merge lists of scalars as a set", POD, """
                        metadata: {finalizers: ["a", "b"]}
                        """, """
                        metadata: {finalizers: ["c", "a"]}
                        """, """
                        metadata: {finalizers: ["c", "a", "b"]}
                        """),
                Arguments.of("merge lists of maps", POD, """
                        spec: {containers: [{name: "1", workingDir: a}, {name: "2", image: "2", workingDir: b}]}
                        """, """
                        spec:
                          $setElementOrder/containers: [{name: "4"}, {name: "1"}, {name: "2"}, {name: "3"}]
                          containers: [{name: "4", image: "4"}, {name: "3", image: "3"}]
                        """, """
                        spec: {containers: [{name: "4", image: "4"}, {name: "1", workingDir: a}, {name: "2", image: "2", workingDir: b}, {name: "3", image: "3"}]}
                        """),
                Arguments.of("merge lists of maps with conflict", POD, """
                        spec: {containers: [{name: "1", workingDir: a}, {name: "2", image: "3", workingDir: b}]}
                        """, """
                        spec:
                          $setElementOrder/containers: [{name: "1"}, {name: "2"}, {name: "3"}]
                          containers: [{name: "2", image: "2"}, {name: "3", image: "3"}]
                        """, """
                        spec: {containers: [{name: "1", workingDir: a}, {name: "2", image: "2", workingDir: b}, {name: "3", image: "3"}]}
                        """),
                Arguments.of("add field to map in merging list with conflict", POD, """
                        spec: {containers: [{name: "1", workingDir: a}, {name: "3", image: "2", workingDir: b}]}
                        """, """
                        spec:
                          $setElementOrder/containers: [{name: "1"}, {name: "2"}]
                          containers: [{name: "1", image: "1"}, {name: "2", image: "2"}]
                        """, """
                        spec: {containers: [{name: "1", image: "1", workingDir: a}, {name: "2", image: "2"}, {name: "3", image: "2", workingDir: b}]}
                        """),
                Arguments.of("reorder merging list only", POD, """
                        spec: {containers: [{name: a, image: x}, {name: b, image: y}]}
                        """, """
                        spec: {$setElementOrder/containers: [{name: b}, {name: a}]}
                        """, """
                        spec: {containers: [{name: b, image: y}, {name: a, image: x}]}
                        """),
                Arguments.of("replace merging list with $patch replace", POD, """
                        spec: {containers: [{name: a}, {name: b}]}
                        """, """
                        spec: {containers: [{name: c, image: c}, {$patch: replace}]}
                        """, """
                        spec: {containers: [{name: c, image: c}]}
                        """),
                Arguments.of("replace map with $patch replace", POD, """
                        metadata: {labels: {a: "1", b: "2"}}
                        """, """
                        metadata: {labels: {$patch: replace, c: "3"}}
                        """, """
                        metadata: {labels: {c: "3"}}
                        """),
                Arguments.of("empty map with $patch delete", POD, """
                        metadata: {labels: {a: "1"}}
                        """, """
                        metadata: {labels: {$patch: delete}}
                        """, """
                        metadata: {labels: {}}
                        """),
                Arguments.of("retainKeys drops the keys not retained", DEPLOYMENT, """
                        spec: {replicas: 2, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}
                        """, """
                        spec: {strategy: {$retainKeys: [type], type: Recreate}}
                        """, """
                        spec: {replicas: 2, strategy: {type: Recreate}}
                        """),
                Arguments.of("retainKeys inside a merging list element", POD, """
                        spec: {volumes: [{name: data, emptyDir: {}}, {name: other, emptyDir: {}}]}
                        """, """
                        spec: {volumes: [{name: data, $retainKeys: [hostPath, name], hostPath: {path: /x}}]}
                        """, """
                        spec: {volumes: [{name: data, hostPath: {path: /x}}, {name: other, emptyDir: {}}]}
                        """),
                Arguments.of("merge container ports by containerPort", POD, """
                        spec: {containers: [{name: c, ports: [{containerPort: 80, name: http}, {containerPort: 443}]}]}
                        """, """
                        spec: {containers: [{name: c, ports: [{containerPort: 80, protocol: TCP}, {containerPort: 8080}]}]}
                        """, """
                        spec: {containers: [{name: c, ports: [{containerPort: 80, name: http, protocol: TCP}, {containerPort: 8080}, {containerPort: 443}]}]}
                        """),
                Arguments.of("merge env by name and replace command", POD, """
                        spec: {containers: [{name: c, command: [a, b], env: [{name: A, value: "1"}, {name: B, value: "2"}]}]}
                        """, """
                        spec: {containers: [{name: c, command: [z], env: [{name: B, value: "3"}]}]}
                        """, """
                        spec: {containers: [{name: c, command: [z], env: [{name: A, value: "1"}, {name: B, value: "3"}]}]}
                        """),
                Arguments.of("tolerations are replaced", POD, """
                        spec: {tolerations: [{key: a, operator: Exists}]}
                        """, """
                        spec: {tolerations: [{key: b, operator: Exists}]}
                        """, """
                        spec: {tolerations: [{key: b, operator: Exists}]}
                        """),
                Arguments.of("owner references merge by uid", POD, """
                        metadata: {ownerReferences: [{uid: u1, name: a, kind: ReplicaSet, apiVersion: apps/v1}]}
                        """, """
                        metadata: {ownerReferences: [{uid: u1, controller: true}, {uid: u2, name: b, kind: Node, apiVersion: v1}]}
                        """, """
                        metadata: {ownerReferences: [{uid: u1, name: a, kind: ReplicaSet, apiVersion: apps/v1, controller: true}, {uid: u2, name: b, kind: Node, apiVersion: v1}]}
                        """),
                Arguments.of("new values lose their nulls and directives", POD, """
                        spec: {containers: [{name: a}]}
                        """, """
                        metadata: {labels: {a: "1", b: null}}
                        spec:
                          $setElementOrder/containers: [{name: a}, {name: n}]
                          containers: [{name: n, $setElementOrder/env: [{name: X}], env: [{name: X, value: "1"}]}]
                        """, """
                        metadata: {labels: {a: "1"}}
                        spec: {containers: [{name: a}, {name: n, env: [{name: X, value: "1"}]}]}
                        """),
                Arguments.of("a scalar replaces a map and a map replaces a scalar", POD, """
                        metadata: {annotations: {a: "1"}}
                        spec: {nodeName: x}
                        """, """
                        metadata: {annotations: "gone"}
                        spec: {nodeName: {odd: true}}
                        """, """
                        metadata: {annotations: "gone"}
                        spec: {nodeName: {odd: true}}
                        """),
                Arguments.of("patch recorded from kubectl 1.32 client-side apply against our OpenAPI v3", POD, """
                        metadata: {name: web, labels: {app: web}}
                        spec: {containers: [{name: a, image: "nginx:1", env: [{name: X, value: "1"}], ports: [{containerPort: 80}]}, {name: b, image: busybox}]}
                        status: {phase: Running}
                        """, """
                        {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}], "containers": [{"image": "busybox:2", "name": "b"},
                          {"$setElementOrder/env": [{"name": "Y"}], "$setElementOrder/ports": [{"containerPort": 80}, {"containerPort": 443}],
                           "env": [{"name": "Y", "value": "2"}, {"$patch": "delete", "name": "X"}], "image": "nginx:2", "name": "a", "ports": [{"containerPort": 443}]}]}}
                        """, """
                        metadata: {name: web, labels: {app: web}}
                        spec: {containers: [{name: b, image: "busybox:2"}, {name: a, image: "nginx:2", env: [{name: "Y", value: "2"}], ports: [{containerPort: 80}, {containerPort: 443}]}]}
                        status: {phase: Running}
                        """),
                Arguments.of("deployment patch recorded from kubectl 1.32 client-side apply against our OpenAPI v3", DEPLOYMENT, """
                        metadata: {name: d}
                        spec:
                          replicas: 2
                          selector: {matchLabels: {app: d}}
                          strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}
                          template:
                            metadata: {labels: {app: d}}
                            spec: {containers: [{name: c, image: "nginx:1"}], volumes: [{name: v, emptyDir: {}}]}
                        """, """
                        {"spec": {"replicas": 3, "strategy": {"$retainKeys": ["type"], "rollingUpdate": null, "type": "Recreate"},
                          "template": {"spec": {"$setElementOrder/containers": [{"name": "c"}], "$setElementOrder/volumes": [{"name": "v"}],
                            "containers": [{"image": "nginx:2", "name": "c"}],
                            "volumes": [{"$retainKeys": ["hostPath", "name"], "emptyDir": null, "hostPath": {"path": "/data"}, "name": "v"}]}}}}
                        """, """
                        metadata: {name: d}
                        spec:
                          replicas: 3
                          selector: {matchLabels: {app: d}}
                          strategy: {type: Recreate}
                          template:
                            metadata: {labels: {app: d}}
                            spec: {containers: [{name: c, image: "nginx:2"}], volumes: [{name: v, hostPath: {path: /data}}]}
                        """),
                Arguments.of("deleteFromPrimitiveList deletes from a replaced list too", POD, """
                        spec: {containers: [{name: c, args: [a, b, c]}]}
                        """, """
                        spec: {containers: [{name: c, $deleteFromPrimitiveList/args: [b]}]}
                        """, """
                        spec: {containers: [{name: c, args: [a, c]}]}
                        """),
                Arguments.of("$setElementOrder names an element the list lacks", POD, """
                        spec: {containers: [{name: "1"}, {name: "3"}]}
                        """, """
                        spec:
                          $setElementOrder/containers: [{name: "3"}, {name: "2"}, {name: "1"}]
                          containers: [{name: "3", image: "3"}, {name: "1", image: "1"}]
                        """, """
                        spec: {containers: [{name: "3", image: "3"}, {name: "1", image: "1"}]}
                        """),
                Arguments.of("$setElementOrder alone reorders a list of scalars", POD, """
                        metadata: {finalizers: ["1", "3"]}
                        """, """
                        metadata: {$setElementOrder/finalizers: ["3", "2", "1"]}
                        """, """
                        metadata: {finalizers: ["3", "1"]}
                        """),
                Arguments.of("preserve the order from the patch in a merging list", POD, """
                        spec: {containers: [{name: "1"}, {name: "2", image: b}, {name: "3"}]}
                        """, """
                        spec: {containers: [{name: "3", image: c}, {name: "1", image: a}]}
                        """, """
                        spec: {containers: [{name: "2", image: b}, {name: "3", image: c}, {name: "1", image: a}]}
                        """),
                Arguments.of("delete all duplicate entries in a merging list", POD, """
                        spec: {containers: [{name: "1"}, {name: "1"}, {name: "2", image: a}, {name: "3"}, {name: "3"}]}
                        """, """
                        spec: {containers: [{name: "1", $patch: delete}, {name: "3", $patch: delete}]}
                        """, """
                        spec: {containers: [{name: "2", image: a}]}
                        """),
                Arguments.of("retainKeys map merges normally without the directive", DEPLOYMENT, """
                        spec: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}
                        """, """
                        spec: {strategy: {rollingUpdate: {maxUnavailable: 0}}}
                        """, """
                        spec: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}}
                        """),
                Arguments.of("delete map from nested map", POD, """
                        metadata: {labels: {key1: "1", key2: "1"}}
                        """, """
                        metadata: {$patch: replace, name: x}
                        """, """
                        metadata: {name: x}
                        """),
                Arguments.of("unknown fields merge like maps", POD, """
                        spec: {extra: {a: 1, list: [1, 2]}}
                        """, """
                        spec: {extra: {b: 2, list: [3]}}
                        """, """
                        spec: {extra: {a: 1, b: 2, list: [3]}}
                        """));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void appliesLikeUpstream(String description, GroupVersionKind kind, String current, String patch, String expected) throws Exception {
        ObjectNode original = (ObjectNode) YAML.readTree(current);
        JsonNode patchNode = YAML.readTree(patch);
        ObjectNode originalCopy = original.deepCopy();
        JsonNode patchCopy = patchNode.deepCopy();

        ObjectNode result = patcher.apply(kind, original, patchNode);

        assertThat(result).isEqualTo(YAML.readTree(expected));
        assertThat(original).as("original untouched").isEqualTo(originalCopy);
        assertThat(patchNode).as("patch untouched").isEqualTo(patchCopy);
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("missing merge key", "spec: {containers: [{name: a}]}", "spec: {containers: [{image: x}]}", 500,
                        "does not contain declared merge key: name"),
                Arguments.of("delete without merge key", "spec: {containers: [{name: a}]}", "spec: {containers: [{$patch: delete}]}", 500,
                        "does not contain declared merge key: name"),
                Arguments.of("unknown list directive", "spec: {containers: [{name: a}]}", "spec: {containers: [{name: a, $patch: explode}]}", 500,
                        "unknown patch type: explode"),
                Arguments.of("merge directive in a list", "spec: {containers: [{name: a}]}", "spec: {containers: [{$patch: merge}]}", 500,
                        "merging lists cannot yet be specified in the patch"),
                Arguments.of("unknown map directive", "metadata: {labels: {a: b}}", "metadata: {labels: {$patch: explode}}", 500,
                        "unknown patch type: explode"),
                Arguments.of("patch key outside retainKeys", "spec: {volumes: [{name: v, emptyDir: {}}]}",
                        "spec: {volumes: [{name: v, $retainKeys: [name], hostPath: {path: /x}}]}", 400, "invalid patch format of retainKeys"),
                Arguments.of("retainKeys not a list", "spec: {volumes: [{name: v}]}", "spec: {volumes: [{name: v, $retainKeys: name}]}", 400,
                        "invalid patch format of retainKeys"),
                Arguments.of("setElementOrder not a list", "spec: {containers: [{name: a}]}", "spec: {$setElementOrder/containers: a}", 400,
                        "invalid patch format of setElementOrder list"),
                Arguments.of("patch element missing from setElementOrder", "spec: {containers: [{name: a}]}",
                        "spec: {$setElementOrder/containers: [{name: a}], containers: [{name: b}]}", 500, "doesn't match $setElementOrder/ list"),
                Arguments.of("order in setElementOrder and patch list differ", "spec: {containers: [{name: \"1\"}, {name: \"3\"}, {name: \"2\"}]}",
                        "spec: {$setElementOrder/containers: [{name: \"1\"}, {name: \"2\"}, {name: \"3\"}], containers: [{name: \"3\", image: \"3\"}, {name: \"1\", image: \"1\"}]}",
                        500, "doesn't match"),
                Arguments.of("deleteFromPrimitiveList not a list", "metadata: {finalizers: [a]}", "metadata: {$deleteFromPrimitiveList/finalizers: a}", 400,
                        "invalid patch format of primitive list"),
                Arguments.of("list of lists", "metadata: {finalizers: [a]}", "metadata: {finalizers: [[b]]}", 422, "lists of lists are not supported"),
                Arguments.of("mixed list elements", "metadata: {finalizers: [a]}", "metadata: {finalizers: [{b: c}]}", 500, "mismatched types"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errors")
    void rejectsLikeUpstream(String description, String current, String patch, int code, String message) throws Exception {
        assertThatThrownBy(() -> patcher.apply(POD, (ObjectNode) YAML.readTree(current), YAML.readTree(patch)))
                .isInstanceOfSatisfying(StatusException.class, error -> {
                    assertThat(error.code()).isEqualTo(code);
                    assertThat(error.getMessage()).contains(message);
                });
    }

    @Test
    void rejectsAPatchThatIsNotAnObject() throws Exception {
        assertThatThrownBy(() -> patcher.apply(POD, (ObjectNode) YAML.readTree("metadata: {}"), YAML.readTree("[1]")))
                .isInstanceOfSatisfying(StatusException.class, error -> assertThat(error.code()).isEqualTo(400));
    }

    @Test
    void refusesKindsWithoutSchema() throws Exception {
        assertThatThrownBy(() -> patcher.apply(new GroupVersionKind("example.com", "v1", "Widget"), (ObjectNode) YAML.readTree("a: 1"), YAML.readTree("a: 2")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
