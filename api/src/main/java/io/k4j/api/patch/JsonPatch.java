package io.k4j.api.patch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Codec;
import io.k4j.api.codec.DecodeException;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON patch (RFC 6902, {@code application/json-patch+json}) with the behaviour of the library upstream's
 * apiserver uses ({@code evanphx/json-patch} v4): operations {@code add}, {@code remove}, {@code replace},
 * {@code move}, {@code copy} and {@code test}; JSON pointers with {@code ~1} and {@code ~0} escapes; array index
 * {@code -} to append and negative indices counted from the end; {@code replace} and {@code remove} of a missing
 * member fail; {@code test} of a missing member against {@code null} passes.
 *
 * <p>Errors are upstream's: a body that is not a JSON array of objects is a 400 with Go's decoding message;
 * more than {@value #MAX_OPERATIONS} operations a 413; any operation that does not apply a 422 whose message
 * upstream deliberately keeps generic ({@value #REJECTED}). {@link #applyWithDetail} gives the reason for logs
 * and tests.
 *
 * <p>Immutable and thread-safe; documents are never modified (a patched copy is returned).
 */
public final class JsonPatch {
    public static final int MAX_OPERATIONS = 10_000;
    public static final String REJECTED = "the server rejected our request due to an error in our request";

    private final List<ObjectNode> operations;

    private JsonPatch(List<ObjectNode> operations) {
        this.operations = List.copyOf(operations);
    }

    /**
     * Parses a patch body.
     *
     * @throws StatusException 400 when it is not a JSON array of objects, 413 when it has too many operations
     */
    public static JsonPatch parse(byte[] body) {
        JsonNode operations;
        try {
            operations = Codec.decodeJson(body).value();
        } catch (DecodeException exception) {
            // Codec speaks of version/kind; the patch decoder reports Go's JSON error alone.
            throw StatusException.badRequest(exception.getMessage().replace("couldn't get version/kind; json parse error: ", ""));
        }
        return of(operations);
    }

    /**
     * A patch from a parsed JSON array of operation objects.
     *
     * @throws StatusException 400 when it is not an array of objects, 413 when it has too many operations
     */
    public static JsonPatch of(JsonNode operations) {
        if (!operations.isArray() && !operations.isNull()) {
            throw StatusException.badRequest("json: cannot unmarshal " + goTypeName(operations) + " into Go value of type jsonpatch.Patch");
        }
        List<ObjectNode> list = new ArrayList<>(operations.size());
        for (JsonNode operation : operations) {
            if (operation.isNull()) {
                list.add(Json.object());
            } else if (operation instanceof ObjectNode object) {
                list.add(object.deepCopy());
            } else {
                throw StatusException.badRequest("json: cannot unmarshal " + goTypeName(operation) + " into Go value of type jsonpatch.Operation");
            }
        }
        if (list.size() > MAX_OPERATIONS) {
            throw new StatusException(StatusReason.REQUEST_ENTITY_TOO_LARGE,
                    "The allowed maximum operations in a JSON patch is " + MAX_OPERATIONS + ", got " + list.size());
        }
        return new JsonPatch(list);
    }

    /** The operations, as given. */
    public List<ObjectNode> operations() {
        return operations;
    }

    /**
     * Applies every operation in order to a copy of the document.
     *
     * @throws StatusException 422 ({@code Invalid}) with upstream's generic message when an operation does not apply
     */
    public JsonNode apply(JsonNode document) {
        try {
            return applyWithDetail(document);
        } catch (PatchException exception) {
            throw new StatusException(StatusReason.INVALID, 422, REJECTED, null, null, null, List.of(), null);
        }
    }

    /**
     * Like {@link #apply} but failing with the reason.
     *
     * @throws PatchException with the library's explanation, e.g. {@code replace operation does not apply: doc is missing key: /spec/x}
     */
    public JsonNode applyWithDetail(JsonNode document) {
        JsonNode result = document.deepCopy();
        for (ObjectNode operation : operations) {
            String kind = kind(operation);
            switch (kind) {
                case "add" -> add(result, operation);
                case "remove" -> remove(result, operation);
                case "replace" -> replace(result, operation);
                case "move" -> move(result, operation);
                case "test" -> test(result, operation);
                case "copy" -> copy(result, operation);
                default -> throw new PatchException("Unexpected kind: " + kind);
            }
        }
        return result;
    }

    private static void add(JsonNode document, ObjectNode operation) {
        String path = path(operation);
        Location location = locate(document, path);
        if (location == null) {
            throw new PatchException("add operation does not apply: doc is missing path: \"" + path + "\"");
        }
        location.add(value(operation));
    }

    private static void remove(JsonNode document, ObjectNode operation) {
        String path = path(operation);
        Location location = locate(document, path);
        if (location == null) {
            throw new PatchException("remove operation does not apply: doc is missing path: \"" + path + "\"");
        }
        location.remove();
    }

    private static void replace(JsonNode document, ObjectNode operation) {
        String path = path(operation);
        Location location = locate(document, path);
        if (location == null) {
            throw new PatchException("replace operation does not apply: doc is missing path: " + path);
        }
        try {
            location.get();
        } catch (PatchException missing) {
            throw new PatchException("replace operation does not apply: doc is missing key: " + path);
        }
        location.set(value(operation));
    }

    private static void move(JsonNode document, ObjectNode operation) {
        String from = field(operation, "from");
        Location source = locate(document, from);
        if (source == null) {
            throw new PatchException("move operation does not apply: doc is missing from path: " + from);
        }
        JsonNode value = source.get();
        source.remove();
        String path = path(operation);
        Location target = locate(document, path);
        if (target == null) {
            throw new PatchException("move operation does not apply: doc is missing destination path: " + path);
        }
        target.add(value);
    }

    private static void copy(JsonNode document, ObjectNode operation) {
        String from = field(operation, "from");
        Location source = locate(document, from);
        if (source == null) {
            throw new PatchException("copy operation does not apply: doc is missing from path: " + from);
        }
        JsonNode value = source.get();
        String path = path(operation);
        Location target = locate(document, path);
        if (target == null) {
            throw new PatchException("copy operation does not apply: doc is missing destination path: " + path);
        }
        target.add(value == null ? null : value.deepCopy());
    }

    private static void test(JsonNode document, ObjectNode operation) {
        String path = path(operation);
        Location location = locate(document, path);
        if (location == null) {
            throw new PatchException("test operation does not apply: is missing path: " + path);
        }
        JsonNode actual;
        try {
            actual = location.get();
        } catch (PatchException missing) {
            actual = null;
        }
        JsonNode expected = operation.get("value");
        if (actual == null || actual.isNull()) {
            if (expected == null || expected.isNull()) {
                return;
            }
            throw new PatchException("testing value " + path + " failed");
        }
        if (expected == null || !JsonEquality.equal(actual, expected)) {
            throw new PatchException("testing value " + path + " failed");
        }
    }

    private static String kind(ObjectNode operation) {
        JsonNode op = operation.get("op");
        return op != null && op.isTextual() ? op.textValue() : "unknown";
    }

    private static String path(ObjectNode operation) {
        JsonNode path = operation.get("path");
        if (path == null || path.isNull()) {
            throw new PatchException("operation missing path field");
        }
        if (!path.isTextual()) {
            throw new PatchException("json: cannot unmarshal " + goTypeName(path) + " into Go value of type string");
        }
        return path.textValue();
    }

    private static String field(ObjectNode operation, String name) {
        JsonNode value = operation.get(name);
        if (value == null || value.isNull()) {
            throw new PatchException("operation missing " + name + " field");
        }
        if (!value.isTextual()) {
            throw new PatchException("json: cannot unmarshal " + goTypeName(value) + " into Go value of type string");
        }
        return value.textValue();
    }

    /** The operation's value; a missing value is {@code null}, as in upstream's library. */
    private static JsonNode value(ObjectNode operation) {
        JsonNode value = operation.get("value");
        return value == null ? Json.nodeFactory().nullNode() : value.deepCopy();
    }

    /**
     * The container holding the pointer's last token and that token, or {@code null} when a parent is missing
     * (upstream's {@code findObject}; the root itself is not addressable).
     */
    private static Location locate(JsonNode document, String pointer) {
        String[] tokens = pointer.split("/", -1);
        if (tokens.length < 2) {
            return null;
        }
        JsonNode container = document;
        for (int i = 1; i < tokens.length - 1; i++) {
            JsonNode next;
            try {
                next = new Location(container, unescape(tokens[i])).get();
            } catch (PatchException missing) {
                return null;
            }
            if (next == null || !next.isContainerNode()) {
                return null;
            }
            container = next;
        }
        if (!container.isContainerNode()) {
            return null;
        }
        return new Location(container, unescape(tokens[tokens.length - 1]));
    }

    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }

    private static String goTypeName(JsonNode value) {
        if (value.isArray()) {
            return "array";
        }
        if (value.isObject()) {
            return "object";
        }
        if (value.isNumber()) {
            return "number";
        }
        if (value.isBoolean()) {
            return "bool";
        }
        return "string";
    }

    /** A member of an object or an element of an array. */
    private record Location(JsonNode container, String key) {
        Location {
            requireNonNull(container, "container is null");
            requireNonNull(key, "key is null");
        }

        JsonNode get() {
            if (container instanceof ObjectNode object) {
                if (!object.has(key)) {
                    throw new PatchException("unable to get nonexistent key: " + key);
                }
                return object.get(key);
            }
            ArrayNode array = (ArrayNode) container;
            return array.get(existingIndex(array));
        }

        void set(JsonNode value) {
            if (container instanceof ObjectNode object) {
                object.set(key, value);
            } else {
                ArrayNode array = (ArrayNode) container;
                array.set(existingIndex(array), value);
            }
        }

        void add(JsonNode value) {
            JsonNode node = value == null ? Json.nodeFactory().nullNode() : value;
            if (container instanceof ObjectNode object) {
                object.set(key, node);
                return;
            }
            ArrayNode array = (ArrayNode) container;
            if (key.equals("-")) {
                array.add(node);
                return;
            }
            int index = index();
            int size = array.size() + 1;
            if (index >= size || index < -size) {
                throw new PatchException("Unable to access invalid index: " + index);
            }
            if (index < 0) {
                index += size;
            }
            array.insert(index, node);
        }

        void remove() {
            if (container instanceof ObjectNode object) {
                if (!object.has(key)) {
                    throw new PatchException("Unable to remove nonexistent key: " + key + ": missing value");
                }
                object.remove(key);
                return;
            }
            ArrayNode array = (ArrayNode) container;
            array.remove(existingIndex(array));
        }

        private int existingIndex(ArrayNode array) {
            int index = index();
            if (index < 0) {
                if (index < -array.size()) {
                    throw new PatchException("Unable to access invalid index: " + index);
                }
                index += array.size();
            }
            if (index >= array.size()) {
                throw new PatchException("Unable to access invalid index: " + index);
            }
            return index;
        }

        private int index() {
            try {
                return Integer.parseInt(key);
            } catch (NumberFormatException exception) {
                throw new PatchException("value was not a proper array index: '" + key + "'");
            }
        }
    }
}
