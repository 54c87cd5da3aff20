package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One step of a path into an object, as structured-merge-diff names it: a field of an object or map
 * ({@code f:name}), an entry of an associative list by its key fields ({@code k:{"name":"nginx"}}), an entry of a
 * set list by its value ({@code v:"a"}), or an entry of a list by position ({@code i:0}, only for lists without
 * keys, which are atomic in the built-in API). Elements are ordered as upstream orders them: fields, then keys,
 * then values, then indexes. Immutable.
 */
public sealed interface PathElement extends Comparable<PathElement> {
    /** A field of an object or a key of a map. */
    record Field(String name) implements PathElement {
        public Field {
            requireNonNull(name, "name is null");
        }
    }

    /**
     * An entry of an associative list.
     *
     * @param fields the key fields and their values, sorted by field name
     */
    record Key(List<KeyField> fields) implements PathElement {
        public Key {
            fields = List.copyOf(requireNonNull(fields, "fields is null"));
        }
    }

    /** One key field of an associative list entry. */
    record KeyField(String name, JsonNode value) {
        public KeyField {
            requireNonNull(name, "name is null");
            requireNonNull(value, "value is null");
        }
    }

    /** An entry of a set list. */
    record Value(JsonNode value) implements PathElement {
        public Value {
            requireNonNull(value, "value is null");
        }
    }

    /** An entry of a list by position. */
    record Index(int index) implements PathElement {}

    /** The element as a key of a {@code fieldsV1} object, e.g. {@code f:spec} or {@code k:{"name":"nginx"}}. */
    default String encode() {
        return switch (this) {
            case Field field -> "f:" + field.name();
            case Key key -> encodeKey(key);
            case Value value -> {
                StringBuilder text = new StringBuilder("v:");
                yield appendPlain(text, value.value()) ? text.toString() : "v:" + Json.writeString(value.value());
            }
            case Index index -> "i:" + index.index();
        };
    }

    private static String encodeKey(Key key) {
        // Keys are mostly short names and numbers, written here as Jackson writes them without its generator.
        StringBuilder text = new StringBuilder(32).append("k:{");
        boolean first = true;
        for (KeyField field : key.fields()) {
            if (!first) {
                text.append(',');
            }
            first = false;
            if (!appendPlainString(text, field.name())) {
                return "k:" + Json.writeString(keyObject(key));
            }
            text.append(':');
            if (!appendPlain(text, field.value())) {
                return "k:" + Json.writeString(keyObject(key));
            }
        }
        return text.append('}').toString();
    }

    /** Appends a string or integer as JSON when it needs no escaping; false (having appended part of it) otherwise. */
    private static boolean appendPlain(StringBuilder text, JsonNode value) {
        if (value.isTextual()) {
            return appendPlainString(text, value.textValue());
        }
        if (value.isInt() || value.isLong()) {
            text.append(value.longValue());
            return true;
        }
        return false;
    }

    private static boolean appendPlainString(StringBuilder text, String value) {
        text.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                return false;
            }
        }
        text.append(value).append('"');
        return true;
    }

    /**
     * The element as upstream prints it in a path: {@code .spec}, {@code [name="nginx"]}, {@code [="a"]},
     * {@code [0]}.
     */
    default String display() {
        return switch (this) {
            case Field field -> "." + field.name();
            case Key key -> {
                List<String> parts = new ArrayList<>(key.fields().size());
                for (KeyField keyField : key.fields()) {
                    parts.add(keyField.name() + "=" + Json.writeString(keyField.value()));
                }
                yield "[" + String.join(",", parts) + "]";
            }
            case Value value -> "[=" + Json.writeString(value.value()) + "]";
            case Index index -> "[" + index.index() + "]";
        };
    }

    /**
     * Parses a key of a {@code fieldsV1} object.
     *
     * @throws IllegalArgumentException when it is not one
     */
    static PathElement decode(String encoded) {
        if (encoded.length() < 2 || encoded.charAt(1) != ':') {
            throw new IllegalArgumentException("invalid path element: " + encoded);
        }
        String rest = encoded.substring(2);
        return switch (encoded.charAt(0)) {
            case 'f' -> new Field(rest);
            case 'k' -> {
                JsonNode object = parse(rest, encoded);
                if (!object.isObject() || object.isEmpty()) {
                    throw new IllegalArgumentException("invalid key in path element: " + encoded);
                }
                List<KeyField> fields = new ArrayList<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = it.next();
                    fields.add(new KeyField(entry.getKey(), entry.getValue()));
                }
                fields.sort((left, right) -> left.name().compareTo(right.name()));
                yield new Key(fields);
            }
            case 'v' -> new Value(parse(rest, encoded));
            case 'i' -> {
                try {
                    yield new Index(Integer.parseInt(rest));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("invalid index in path element: " + encoded, e);
                }
            }
            default -> throw new IllegalArgumentException("unknown path element type in: " + encoded);
        };
    }

    private static JsonNode parse(String json, String encoded) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("invalid JSON in path element: " + encoded, e);
        }
    }

    private static ObjectNode keyObject(Key key) {
        ObjectNode object = Json.object();
        for (KeyField field : key.fields()) {
            object.set(field.name(), field.value());
        }
        return object;
    }

    @Override
    default int compareTo(PathElement other) {
        int rank = Integer.compare(rank(this), rank(other));
        if (rank != 0) {
            return rank;
        }
        return switch (this) {
            case Field field -> field.name().compareTo(((Field) other).name());
            case Key key -> compareKeys(key.fields(), ((Key) other).fields());
            case Value value -> Values.compare(value.value(), ((Value) other).value());
            case Index index -> Integer.compare(index.index(), ((Index) other).index());
        };
    }

    private static int rank(PathElement element) {
        return switch (element) {
            case Field field -> 0;
            case Key key -> 1;
            case Value value -> 2;
            case Index index -> 3;
        };
    }

    private static int compareKeys(List<KeyField> left, List<KeyField> right) {
        for (int i = 0; ; i++) {
            if (i >= left.size() || i >= right.size()) {
                return Integer.compare(left.size(), right.size());
            }
            int byName = left.get(i).name().compareTo(right.get(i).name());
            if (byName != 0) {
                return byName;
            }
            int byValue = Values.compare(left.get(i).value(), right.get(i).value());
            if (byValue != 0) {
                return byValue;
            }
        }
    }
}
