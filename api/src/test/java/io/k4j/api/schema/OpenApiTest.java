package io.k4j.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.api.resource.BuiltinResources;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.resource.ResourceType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpenApiTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode v3(String path) throws Exception {
        return MAPPER.readTree(OpenApiV3.groupVersion(path).orElseThrow());
    }

    @Test
    void indexListsEveryGroupVersionWithItsHash() throws Exception {
        JsonNode paths = MAPPER.readTree(OpenApiV3.index()).get("paths");
        assertThat(iterable(paths.fieldNames())).contains("api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/batch/v1",
                "apis/rbac.authorization.k8s.io/v1", "apis/events.k8s.io/v1", "apis/authorization.k8s.io/v1");
        for (String path : iterable(paths.fieldNames())) {
            assertThat(paths.get(path).get("serverRelativeURL").asText())
                    .isEqualTo("/openapi/v3/" + path + "?hash=" + OpenApiV3.hash(path).orElseThrow());
            assertThat(OpenApiV3.groupVersion(path)).isPresent();
        }
        assertThat(OpenApiV3.hash("apis/apps/v1").orElseThrow()).matches("[0-9A-F]{128}");
        assertThat(OpenApiV3.groupVersion("apis/nothing/v1")).isEmpty();
        // stable: the same bytes every time
        assertThat(OpenApiV3.groupVersion("api/v1").orElseThrow()).isEqualTo(OpenApiV3.groupVersion("api/v1").orElseThrow());
    }

    /** What kubectl's query parameter verifier does: the first PATCH operation of a kind must list fieldValidation. */
    @Test
    void everyPatchOperationOfEveryKindAcceptsFieldValidationAndStrategicMerge() throws Exception {
        Set<GroupVersionKind> patchable = new HashSet<>();
        for (String path : OpenApiV3.paths()) {
            JsonNode document = v3(path);
            assertThat(document.get("openapi").asText()).isEqualTo("3.0.0");
            for (JsonNode pathItem : iterable(document.get("paths").elements())) {
                JsonNode patch = pathItem.get("patch");
                if (patch == null || !patch.has("x-kubernetes-group-version-kind") || patch.get("x-kubernetes-action").asText().equals("connect")) {
                    continue;
                }
                JsonNode gvk = patch.get("x-kubernetes-group-version-kind");
                patchable.add(new GroupVersionKind(gvk.get("group").asText(), gvk.get("version").asText(), gvk.get("kind").asText()));
                List<String> parameters = new ArrayList<>();
                patch.get("parameters").forEach(parameter -> parameters.add(parameter.get("name").asText()));
                assertThat(parameters).contains("fieldValidation", "fieldManager", "dryRun", "force");
                assertThat(iterable(patch.get("requestBody").get("content").fieldNames()))
                        .contains("application/strategic-merge-patch+json", "application/merge-patch+json", "application/json-patch+json", "application/apply-patch+yaml");
            }
        }
        for (ResourceType type : BuiltinResources.all()) {
            if (type.verbs().contains("patch")) {
                assertThat(patchable).as(type.plural()).contains(type.gvk());
            }
        }
    }

    /** What kubectl explain does: find the kind through its resource's paths, then the schema carrying that kind. */
    @Test
    void explainFindsKindsAndFollowsReferences() throws Exception {
        JsonNode document = v3("apis/apps/v1");
        JsonNode list = document.get("paths").get("/apis/apps/v1/namespaces/{namespace}/deployments").get("get");
        assertThat(list.get("operationId").asText()).isEqualTo("listAppsV1NamespacedDeployment");
        assertThat(list.get("x-kubernetes-action").asText()).isEqualTo("list");
        JsonNode gvk = list.get("x-kubernetes-group-version-kind");
        JsonNode schemas = document.get("components").get("schemas");
        JsonNode deployment = null;
        for (JsonNode schema : iterable(schemas.elements())) {
            JsonNode kinds = schema.get("x-kubernetes-group-version-kind");
            if (kinds != null && iterable(kinds.elements()).contains(gvk)) {
                deployment = schema;
            }
        }
        assertThat(deployment).isNotNull();
        JsonNode spec = resolve(document, deployment.get("properties").get("spec"));
        JsonNode template = resolve(document, spec.get("properties").get("template"));
        JsonNode podSpec = resolve(document, template.get("properties").get("spec"));
        JsonNode containers = podSpec.get("properties").get("containers");
        assertThat(containers.get("type").asText()).isEqualTo("array");
        assertThat(containers.get("x-kubernetes-patch-merge-key").asText()).isEqualTo("name");
        assertThat(containers.get("x-kubernetes-patch-strategy").asText()).isEqualTo("merge");
        assertThat(containers.get("x-kubernetes-list-type").asText()).isEqualTo("map");
        JsonNode container = resolve(document, containers.get("items"));
        JsonNode ports = container.get("properties").get("ports");
        assertThat(ports.get("x-kubernetes-list-map-keys")).extracting(JsonNode::asText).containsExactly("containerPort", "protocol");
        JsonNode limits = resolve(document, container.get("properties").get("resources")).get("properties").get("limits");
        assertThat(limits.get("additionalProperties").get("$ref").asText()).isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
        JsonNode creationTimestamp = resolve(document, resolve(document, deployment.get("properties").get("metadata")).get("properties").get("creationTimestamp"));
        assertThat(creationTimestamp.get("format").asText()).isEqualTo("date-time");
        assertThat(resolve(document, resolve(document, spec.get("properties").get("strategy")).get("properties").get("rollingUpdate"))
                .get("properties").get("maxSurge").get("$ref").asText()).endsWith("IntOrString");
        assertThat(spec.get("properties").get("strategy").get("x-kubernetes-patch-strategy").asText()).isEqualTo("retainKeys");
    }

    /** What kubectl explain prints under DESCRIPTION and FIELDS: the types' and fields' documentation. */
    @Test
    void typesAndFieldsCarryUpstreamDocumentation() throws Exception {
        JsonNode document = v3("api/v1");
        JsonNode schemas = document.get("components").get("schemas");
        JsonNode podSpec = schemas.get("io.k8s.api.core.v1.PodSpec");
        assertThat(podSpec.get("description").asText()).containsIgnoringCase("pod");
        JsonNode containers = podSpec.get("properties").get("containers");
        assertThat(containers.get("description").asText()).containsIgnoringCase("container");
        assertThat(containers.get("items").get("$ref").asText()).endsWith("io.k8s.api.core.v1.Container");
        JsonNode container = schemas.get("io.k8s.api.core.v1.Container");
        assertThat(container.get("description").asText()).isNotBlank();
        assertThat(container.get("properties").get("image").get("description").asText()).containsIgnoringCase("image");
        assertThat(container.get("properties").get("image").get("type").asText()).isEqualTo("string");
        // fabric8 has no documentation of fields holding one nested object: those stay plain references
        assertThat(container.get("properties").get("resources").get("$ref").asText()).endsWith("io.k8s.api.core.v1.ResourceRequirements");
        assertThat(container.get("properties").get("resources").has("description")).isFalse();
        JsonNode deploymentStrategy = v3("apis/apps/v1").get("components").get("schemas").get("io.k8s.api.apps.v1.DeploymentStrategy");
        assertThat(deploymentStrategy.get("description").asText()).isNotBlank();
        assertThat(deploymentStrategy.get("properties").get("type").get("description").asText()).isNotBlank();
        JsonNode objectMeta = schemas.get(Schemas.OBJECT_META);
        assertThat(objectMeta.get("description").asText()).isNotBlank();
        assertThat(objectMeta.get("properties").get("labels").get("description").asText()).containsIgnoringCase("label");
        JsonNode v2Container = MAPPER.readTree(OpenApiV2.document()).get("definitions").get("io.k8s.api.core.v1.Container");
        assertThat(v2Container.get("description").asText()).isNotBlank();
        assertThat(v2Container.get("properties").get("image").get("description").asText()).containsIgnoringCase("image");
    }

    /** Every kind is documented, except the few with no generated model source (hand-written in fabric8, or defined here). */
    @Test
    void everyServedKindIsDocumented() throws Exception {
        JsonNode definitions = MAPPER.readTree(OpenApiV2.document()).get("definitions");
        List<String> undocumented = new ArrayList<>();
        for (Map.Entry<String, JsonNode> definition : iterable(definitions.fields())) {
            if (definition.getValue().has("x-kubernetes-group-version-kind") && !definition.getValue().has("description")) {
                undocumented.add(definition.getKey());
            }
        }
        assertThat(undocumented).containsOnly("io.k8s.api.autoscaling.v1.Scale", Schemas.STATUS, Schemas.DELETE_OPTIONS);
    }

    @Test
    void everyReferenceResolvesInsideItsDocument() throws Exception {
        for (String path : OpenApiV3.paths()) {
            JsonNode document = v3(path);
            for (String reference : references(document)) {
                assertThat(reference).startsWith("#/components/schemas/");
                assertThat(document.get("components").get("schemas").has(reference.substring("#/components/schemas/".length())))
                        .as(path + " " + reference).isTrue();
            }
        }
        JsonNode v2 = MAPPER.readTree(OpenApiV2.document());
        for (String reference : references(v2)) {
            assertThat(v2.get("definitions").has(reference.substring("#/definitions/".length()))).as(reference).isTrue();
        }
    }

    @Test
    void swaggerDocumentDescribesEveryOperationOnce() throws Exception {
        JsonNode document = MAPPER.readTree(OpenApiV2.document());
        assertThat(document.get("swagger").asText()).isEqualTo("2.0");
        assertThat(document.get("definitions").has("io.k8s.api.core.v1.Pod")).isTrue();
        assertThat(document.get("definitions").get("io.k8s.api.core.v1.Pod").get("x-kubernetes-group-version-kind").get(0).get("kind").asText()).isEqualTo("Pod");
        assertThat(document.get("definitions").get(Schemas.INT_OR_STRING).get("format").asText()).isEqualTo("int-or-string");
        JsonNode pods = document.get("paths").get("/api/v1/namespaces/{namespace}/pods");
        assertThat(pods.get("get").get("operationId").asText()).isEqualTo("listCoreV1NamespacedPod");
        assertThat(pods.get("post").get("operationId").asText()).isEqualTo("createCoreV1NamespacedPod");
        assertThat(pods.get("delete").get("operationId").asText()).isEqualTo("deleteCoreV1CollectionNamespacedPod");
        assertThat(pods.get("delete").get("x-kubernetes-action").asText()).isEqualTo("deletecollection");
        JsonNode paths = document.get("paths");
        assertThat(paths.get("/api/v1/namespaces/{namespace}/pods/{name}/log").get("get").get("operationId").asText()).isEqualTo("readCoreV1NamespacedPodLog");
        assertThat(paths.get("/api/v1/namespaces/{namespace}/pods/{name}/exec").get("post").get("operationId").asText()).isEqualTo("connectCoreV1PostNamespacedPodExec");
        assertThat(paths.get("/api/v1/namespaces/{namespace}/pods/{name}/eviction").get("post").get("x-kubernetes-group-version-kind").get("group").asText()).isEqualTo("policy");
        assertThat(paths.get("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale").get("patch").get("operationId").asText())
                .isEqualTo("patchAppsV1NamespacedDeploymentScale");
        assertThat(paths.get("/api/v1/namespaces").has("delete")).isFalse();
        assertThat(paths.get("/api/v1/namespaces/{name}/finalize").get("put").get("operationId").asText()).isEqualTo("replaceCoreV1NamespaceFinalize");
        assertThat(paths.get("/apis/rbac.authorization.k8s.io/v1/clusterroles").get("get").get("operationId").asText()).isEqualTo("listRbacAuthorizationV1ClusterRole");
        assertThat(paths.get("/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews").get("post").get("operationId").asText())
                .isEqualTo("createAuthorizationV1NamespacedLocalSubjectAccessReview");
        assertThat(paths.get("/api/v1/watch/namespaces/{namespace}/pods/{name}").get("get").get("x-kubernetes-action").asText()).isEqualTo("watch");
        assertThat(paths.get("/api/v1/pods").get("get").get("operationId").asText()).isEqualTo("listCoreV1PodForAllNamespaces");
        Set<String> operationIds = new HashSet<>();
        for (Map.Entry<String, JsonNode> path : iterable(paths.fields())) {
            for (Map.Entry<String, JsonNode> operation : iterable(path.getValue().fields())) {
                if (!operation.getKey().equals("parameters")) {
                    assertThat(operationIds.add(operation.getValue().get("operationId").asText())).as(operation.getValue().get("operationId").asText()).isTrue();
                }
            }
        }
        assertThat(OpenApiV2.hash()).matches("[0-9A-F]{128}");
    }

    private static JsonNode resolve(JsonNode document, JsonNode schema) {
        JsonNode current = schema;
        if (current.has("allOf")) {
            current = current.get("allOf").get(0);
        }
        if (current.has("$ref")) {
            String name = current.get("$ref").asText().substring("#/components/schemas/".length());
            return document.get("components").get("schemas").get(name);
        }
        return current;
    }

    private static List<String> references(JsonNode document) {
        List<String> references = new ArrayList<>();
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(document);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            if (node.has("$ref")) {
                references.add(node.get("$ref").asText());
            }
            node.forEach(pending::push);
        }
        return references;
    }

    private static <T> List<T> iterable(Iterator<T> iterator) {
        List<T> list = new ArrayList<>();
        iterator.forEachRemaining(list::add);
        return list;
    }
}
