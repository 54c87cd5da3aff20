package io.k4j.api.schema;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ApiGroupVersions;
import io.k4j.api.resource.BuiltinResources;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The OpenAPI 3.0 documents the apiserver serves under {@code /openapi/v3}: an index listing one document per
 * path ({@code api}, {@code api/v1}, {@code apis}, {@code apis/apps}, {@code apis/apps/v1}, …) with a hash in its
 * URL, and the documents themselves, each with the paths and operations of its group version and the schemas
 * they reach in {@code components.schemas}.
 *
 * <p>What clients read from them: kubectl decides that the server validates fields when the PATCH operation
 * of a kind lists a {@code fieldValidation} parameter; {@code kubectl explain} finds a kind's paths and the
 * schema carrying its {@code x-kubernetes-group-version-kind}; {@code kubectl apply} checks that the PATCH
 * operation accepts {@code application/strategic-merge-patch+json} and computes the patch from the schema's
 * {@code x-kubernetes-patch-*} extensions.
 *
 * <p>Thread-safe; all documents are built once, on first use.
 */
public final class OpenApiV3 {
    /** The path prefix of the documents; the index lives at this path. */
    public static final String ROOT = "/openapi/v3";

    private static final class Holder {
        static final Map<String, byte[]> DOCUMENTS = buildAll();
        static final Map<String, String> HASHES = hashes(DOCUMENTS);
        static final byte[] INDEX = OpenApiWriter.bytes(index(HASHES));
    }

    private OpenApiV3() {}

    /** The JSON of {@code /openapi/v3}: {@code {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"},…}}}. */
    public static byte[] index() {
        return Holder.INDEX.clone();
    }

    /** The document of one path such as {@code apis/apps/v1} or {@code api/v1}; empty when none is served there. */
    public static Optional<byte[]> groupVersion(String path) {
        return Optional.ofNullable(Holder.DOCUMENTS.get(path)).map(byte[]::clone);
    }

    /** The hash that versions the document of a path; clients cache a document by it. */
    public static Optional<String> hash(String path) {
        return Optional.ofNullable(Holder.HASHES.get(path));
    }

    /** Every served document path, sorted. */
    public static Set<String> paths() {
        return Holder.DOCUMENTS.keySet();
    }

    private static Map<String, byte[]> buildAll() {
        Map<String, List<ApiOperations.PathItem>> byDocument = new LinkedHashMap<>();
        List<ApiOperations.PathItem> roots = ApiOperations.rootPaths();
        byDocument.put("api", List.of(roots.get(0)));
        byDocument.put("api/v1", ApiOperations.groupVersionPaths("", "v1"));
        byDocument.put("apis", List.of(roots.get(1)));
        for (ApiGroupVersions group : BuiltinResources.groups()) {
            byDocument.put("apis/" + group.group(), List.of(ApiOperations.groupPath(group)));
            for (String version : group.versions()) {
                byDocument.put("apis/" + group.group() + "/" + version, ApiOperations.groupVersionPaths(group.group(), version));
            }
        }
        Map<String, byte[]> documents = new TreeMap<>();
        byDocument.forEach((path, items) -> documents.put(path, OpenApiWriter.bytes(document(items))));
        return Collections.unmodifiableMap(documents);
    }

    private static Map<String, String> hashes(Map<String, byte[]> documents) {
        Map<String, String> hashes = new TreeMap<>();
        documents.forEach((path, bytes) -> hashes.put(path, OpenApiWriter.hash(bytes)));
        return hashes;
    }

    private static ObjectNode index(Map<String, String> hashes) {
        ObjectNode index = OpenApiWriter.NODES.objectNode();
        ObjectNode paths = index.putObject("paths");
        hashes.forEach((path, hash) -> paths.putObject(path).put("serverRelativeURL", ROOT + "/" + path + "?hash=" + hash));
        return index;
    }

    private static ObjectNode document(List<ApiOperations.PathItem> items) {
        SchemaRenderer renderer = SchemaRenderer.version3();
        Map<String, ObjectNode> paths = new TreeMap<>();
        for (ApiOperations.PathItem item : items) {
            paths.put(item.path(), pathItem(item, renderer));
        }
        ObjectNode pathsNode = OpenApiWriter.NODES.objectNode();
        paths.forEach(pathsNode::set);
        ObjectNode document = OpenApiWriter.NODES.objectNode();
        ObjectNode components = document.putObject("components");
        components.set("schemas", OpenApiWriter.definitions(OpenApiWriter.referencedDefinitions(pathsNode, "#/components/schemas/"), renderer));
        components.putObject("securitySchemes").set("BearerToken", OpenApiWriter.bearerToken());
        document.set("info", OpenApiWriter.info());
        document.put("openapi", "3.0.0");
        document.set("paths", pathsNode);
        document.set("security", OpenApiWriter.security());
        return document;
    }

    private static ObjectNode pathItem(ApiOperations.PathItem item, SchemaRenderer renderer) {
        ObjectNode node = OpenApiWriter.NODES.objectNode();
        for (ApiOperations.Operation operation : item.operations()) {
            node.set(operation.method(), operation(operation, renderer));
        }
        if (!item.parameters().isEmpty()) {
            ArrayNode parameters = node.putArray("parameters");
            item.parameters().forEach(parameter -> parameters.add(parameter(parameter)));
        }
        return node;
    }

    private static ObjectNode operation(ApiOperations.Operation operation, SchemaRenderer renderer) {
        ObjectNode node = OpenApiWriter.NODES.objectNode();
        node.put("description", operation.description());
        node.put("operationId", operation.operationId());
        if (!operation.parameters().isEmpty()) {
            ArrayNode parameters = node.putArray("parameters");
            operation.parameters().forEach(parameter -> parameters.add(parameter(parameter)));
        }
        operation.requestBody().ifPresent(body -> {
            ObjectNode requestBody = node.putObject("requestBody");
            ObjectNode content = requestBody.putObject("content");
            for (String mediaType : operation.consumes()) {
                content.putObject(mediaType).set("schema", renderer.reference(body));
            }
            if (!operation.method().equals("delete")) {
                requestBody.put("required", true);
            }
        });
        ObjectNode responses = node.putObject("responses");
        for (int code : operation.successCodes()) {
            ObjectNode response = responses.putObject(Integer.toString(code));
            ObjectNode content = response.putObject("content");
            for (String mediaType : operation.produces()) {
                content.putObject(mediaType).set("schema", operation.response().map(renderer::reference).orElseGet(() -> {
                    ObjectNode text = OpenApiWriter.NODES.objectNode();
                    text.put("type", "string");
                    return text;
                }));
            }
            response.put("description", OpenApiWriter.statusText(code));
        }
        responses.putObject("401").put("description", "Unauthorized");
        node.putArray("tags").add(operation.tag());
        operation.action().ifPresent(action -> node.put("x-kubernetes-action", action));
        operation.kind().ifPresent(kind -> node.set("x-kubernetes-group-version-kind", SchemaRenderer.groupVersionKind(kind)));
        return node;
    }

    private static ObjectNode parameter(ApiOperations.Parameter parameter) {
        ObjectNode node = OpenApiWriter.NODES.objectNode();
        node.put("description", parameter.description());
        node.put("in", parameter.in());
        node.put("name", parameter.name());
        if (parameter.required()) {
            node.put("required", true);
        }
        ObjectNode schema = node.putObject("schema");
        schema.put("type", parameter.type());
        schema.put("uniqueItems", true);
        return node;
    }
}
