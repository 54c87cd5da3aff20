package io.k4j.api.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Set;
import java.util.TreeSet;

/** What both OpenAPI versions share: the info block, the security scheme, serialization and hashing. Thread-safe. */
final class OpenApiWriter {
    /** The Kubernetes version whose API the documents describe. */
    static final String KUBERNETES_VERSION = "v1.32.0";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private OpenApiWriter() {}

    static ObjectNode info() {
        ObjectNode info = NODES.objectNode();
        info.put("title", "Kubernetes");
        info.put("version", KUBERNETES_VERSION);
        return info;
    }

    static ObjectNode bearerToken() {
        ObjectNode scheme = NODES.objectNode();
        scheme.put("description", "Bearer Token authentication");
        scheme.put("in", "header");
        scheme.put("name", "authorization");
        scheme.put("type", "apiKey");
        return scheme;
    }

    static ArrayNode security() {
        ArrayNode security = NODES.arrayNode();
        security.addObject().putArray("BearerToken");
        return security;
    }

    static String statusText(int code) {
        return switch (code) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            default -> throw new IllegalArgumentException("undocumented status code " + code);
        };
    }

    /** The definitions with the given roots and all they reach, rendered and sorted by name. */
    static ObjectNode definitions(Collection<String> roots, SchemaRenderer renderer) {
        Schemas schemas = Schemas.builtin();
        Set<String> names = new TreeSet<>(schemas.closure(new TreeSet<>(roots)));
        ObjectNode definitions = NODES.objectNode();
        for (String name : names) {
            definitions.set(name, renderer.definition(schemas.definition(name)));
        }
        return definitions;
    }

    /** The names of every definition referenced ({@code $ref}) anywhere inside a node. */
    static Set<String> referencedDefinitions(ObjectNode node, String referencePrefix) {
        Set<String> names = new TreeSet<>();
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(node);
        while (!pending.isEmpty()) {
            JsonNode current = pending.pop();
            if (current.isObject()) {
                JsonNode reference = current.get("$ref");
                if (reference != null && reference.isTextual() && reference.asText().startsWith(referencePrefix)) {
                    names.add(reference.asText().substring(referencePrefix.length()));
                }
            }
            current.forEach(pending::push);
        }
        return names;
    }

    static byte[] bytes(ObjectNode document) {
        try {
            return MAPPER.writeValueAsBytes(document);
        } catch (JsonProcessingException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /** Upstream publishes the upper-case hex SHA-512 of a document's bytes as its hash. */
    static String hash(byte[] document) {
        try {
            return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-512").digest(document));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("SHA-512 is part of every JDK", impossible);
        }
    }

}
