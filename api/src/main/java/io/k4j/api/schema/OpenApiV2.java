package io.k4j.api.schema;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.resource.ApiGroupVersions;
import io.k4j.api.resource.BuiltinResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Swagger 2.0 document the apiserver serves at {@code /openapi/v2}: every path and operation of the
 * served resources with upstream's operation ids, actions, kinds and query parameters, and every definition
 * under upstream's names with the patch and list metadata clients use for strategic merge patches.
 *
 * <p>Thread-safe; the document is built once, on first use.
 */
public final class OpenApiV2 {
    private static final class Holder {
        static final byte[] DOCUMENT = OpenApiWriter.bytes(build());
        static final String HASH = OpenApiWriter.hash(DOCUMENT);
    }

    private OpenApiV2() {}

    /** The JSON bytes of the document (a copy; callers may keep or change it). */
    public static byte[] document() {
        return Holder.DOCUMENT.clone();
    }

    /** A stable hash of the document, usable as an ETag. */
    public static String hash() {
        return Holder.HASH;
    }

    private static ObjectNode build() {
        SchemaRenderer renderer = SchemaRenderer.version2();
        List<ApiOperations.PathItem> items = new ArrayList<>(ApiOperations.rootPaths());
        items.addAll(ApiOperations.groupVersionPaths("", "v1"));
        for (ApiGroupVersions group : BuiltinResources.groups()) {
            items.add(ApiOperations.groupPath(group));
            for (String version : group.versions()) {
                items.addAll(ApiOperations.groupVersionPaths(group.group(), version));
            }
        }
        Map<String, ObjectNode> paths = new TreeMap<>();
        for (ApiOperations.PathItem item : items) {
            paths.put(item.path(), pathItem(item, renderer));
        }
        ObjectNode document = OpenApiWriter.NODES.objectNode();
        document.put("swagger", "2.0");
        document.set("info", OpenApiWriter.info());
        ObjectNode pathsNode = document.putObject("paths");
        paths.forEach(pathsNode::set);
        document.set("definitions", OpenApiWriter.definitions(Schemas.builtin().definitions().keySet(), renderer));
        document.putObject("securityDefinitions").set("BearerToken", OpenApiWriter.bearerToken());
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
        ArrayNode consumes = node.putArray("consumes");
        operation.consumes().forEach(consumes::add);
        node.put("description", operation.description());
        node.put("operationId", operation.operationId());
        if (!operation.parameters().isEmpty() || operation.requestBody().isPresent()) {
            ArrayNode parameters = node.putArray("parameters");
            operation.requestBody().ifPresent(body -> {
                ObjectNode parameter = parameters.addObject();
                parameter.put("in", "body");
                parameter.put("name", "body");
                parameter.put("required", !operation.method().equals("delete"));
                parameter.set("schema", renderer.reference(body));
            });
            operation.parameters().forEach(parameter -> parameters.add(parameter(parameter)));
        }
        ArrayNode produces = node.putArray("produces");
        operation.produces().forEach(produces::add);
        ObjectNode responses = node.putObject("responses");
        for (int code : operation.successCodes()) {
            ObjectNode response = responses.putObject(Integer.toString(code));
            response.put("description", OpenApiWriter.statusText(code));
            response.set("schema", operation.response().map(renderer::reference).orElseGet(() -> {
                ObjectNode text = OpenApiWriter.NODES.objectNode();
                text.put("type", "string");
                return text;
            }));
        }
        responses.putObject("401").put("description", "Unauthorized");
        node.putArray("schemes").add("https");
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
        node.put("type", parameter.type());
        node.put("uniqueItems", true);
        return node;
    }
}
