package io.k4j.apiserver.registry.generic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON mapper of the apiserver and small helpers on object trees. Thread-safe. */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();
    private static final ObjectReader STRICT_READER = MAPPER.reader().with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);

    private Json() {}

    /** Parses trusted bytes (from storage) that must hold a JSON object. */
    public static ObjectNode parseObject(byte[] json) {
        try {
            return (ObjectNode) MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a request body; malformed input or a non-object is a 400 as upstream reports it. */
    public static ObjectNode parseRequestObject(byte[] body, boolean rejectDuplicateFields) {
        JsonNode node;
        try {
            node = rejectDuplicateFields ? STRICT_READER.readTree(body) : MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw StatusException.badRequest(decodeMessage(e));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (node == null || node.isMissingNode()) {
            throw StatusException.badRequest("Object 'Kind' is missing in '" + new String(body, java.nio.charset.StandardCharsets.UTF_8) + "'");
        }
        if (!(node instanceof ObjectNode object)) {
            throw StatusException.badRequest("json: cannot unmarshal " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " into Go value of type struct");
        }
        return object;
    }

    private static String decodeMessage(JsonProcessingException e) {
        if (e.getMessage() != null && e.getMessage().startsWith("Duplicate field")) {
            return "json: duplicate field: " + e.getOriginalMessage();
        }
        return "couldn't get version/kind; json parse error: " + e.getOriginalMessage();
    }

    public static byte[] write(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Tree equality that treats numbers of different representations (1 and 1L) as equal. */
    public static boolean semanticallyEqual(JsonNode left, JsonNode right) {
        return left.equals(NUMERIC_COMPARATOR, right);
    }

    private static final java.util.Comparator<JsonNode> NUMERIC_COMPARATOR = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    /** {@code metadata}, created when absent. */
    public static ObjectNode metadata(ObjectNode object) {
        JsonNode metadata = object.get("metadata");
        if (metadata instanceof ObjectNode node) {
            return node;
        }
        return object.putObject("metadata");
    }

    /** A text field of {@code metadata}, or empty. */
    public static String metadataText(ObjectNode object, String field) {
        JsonNode metadata = object.get("metadata");
        if (metadata == null) {
            return "";
        }
        JsonNode value = metadata.get(field);
        return value == null || value.isNull() ? "" : value.asText();
    }

    /** A string map of {@code metadata} (labels or annotations), empty when absent. */
    public static Map<String, String> metadataMap(ObjectNode object, String field) {
        JsonNode metadata = object.get("metadata");
        JsonNode map = metadata == null ? null : metadata.get(field);
        if (map == null || !map.isObject() || map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> result = new LinkedHashMap<>();
        map.fields().forEachRemaining(entry -> result.put(entry.getKey(), entry.getValue().asText()));
        return result;
    }

    /** Walks a dotted path of object fields ({@code spec.nodeName}); the text there or {@code null}. */
    public static String textAt(ObjectNode object, String dottedPath) {
        JsonNode current = object;
        for (String part : dottedPath.split("\\.")) {
            current = current == null ? null : current.get(part);
        }
        return current == null || current.isNull() || current.isContainerNode() ? null : current.asText();
    }
}
