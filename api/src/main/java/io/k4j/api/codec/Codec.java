package io.k4j.api.codec;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.k4j.api.errors.StatusException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Decodes request bodies and encodes responses the way upstream's serializers do.
 *
 * <p>Decoding builds a JSON tree from JSON or YAML (one document, or several for callers that take
 * multi-document YAML), keeping property order, int64 values and exact decimals (see {@link Json}). It also
 * reports every duplicated field in upstream's strict-decoding words — {@code duplicate field "spec.paused"}
 * for JSON, {@code line 12: key "paused" already set in map} for YAML — so that the caller can fail
 * ({@code fieldValidation=Strict}) or warn ({@code Warn}, the default) as upstream does; the last value wins, as
 * in Go. Malformed input fails with a {@link DecodeException} whose message is Go's ({@code couldn't get
 * version/kind; json parse error: invalid character …}); {@link #decodeObject} turns it into upstream's 400.
 *
 * <p>Encoding writes compact JSON in the tree's order, or YAML as upstream's YAML serializer does (keys
 * sorted, block style, sequences not indented under their key, strings quoted only when they would read as
 * another type, no document start marker).
 *
 * <p>Stateless and thread-safe.
 */
public final class Codec {
    private static final int MAX_NESTING_DEPTH = 10_000;
    /**
     * With the shared name table: request bodies seldom carry managedFields, whose keys unique to one object make the
     * table costly (see {@link Json#readWithoutNameTable}), and without it every name of a body is a new string.
     */
    private static final JsonFactory JSON_FACTORY = Json.mapper().getFactory();
    private static final YAMLFactory YAML_FACTORY = YAMLFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
            .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .disable(YAMLGenerator.Feature.INDENT_ARRAYS)
            .build();
    private static final DefaultPrettyPrinter PRETTY_PRINTER = new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"))
            .withSeparators(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER));

    private static final String LIST_ITEMS = "items";

    private Codec() {}

    /** The body formats objects can be sent in. */
    public enum Format {
        JSON,
        YAML;

        /**
         * The format of a {@code Content-Type}, ignoring parameters such as {@code charset}; empty for any other
         * media type (the caller answers 415).
         */
        public static Optional<Format> ofContentType(String contentType) {
            if (contentType == null) {
                return Optional.empty();
            }
            int semicolon = contentType.indexOf(';');
            String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
            return switch (mediaType) {
                case "application/json" -> Optional.of(JSON);
                case "application/yaml" -> Optional.of(YAML);
                default -> Optional.empty();
            };
        }
    }

    /**
     * A decoded body.
     *
     * @param value the tree; the last of duplicated fields wins
     * @param duplicateFields one upstream strict-decoding message per duplicated field, in document order
     */
    public record Decoded(JsonNode value, List<String> duplicateFields) {
        public Decoded {
            Objects.requireNonNull(value, "value is null");
            duplicateFields = List.copyOf(duplicateFields);
        }
    }

    /** Decodes one JSON value or one YAML document. */
    public static Decoded decode(byte[] body, Format format) {
        return switch (format) {
            case JSON -> decodeJson(body);
            case YAML -> {
                List<Decoded> documents = decodeYamlDocuments(body);
                yield documents.isEmpty() ? new Decoded(Json.nodeFactory().nullNode(), List.of()) : documents.get(0);
            }
        };
    }

    /**
     * Decodes a body that must hold one object, as upstream's create and update handlers do, failing with
     * upstream's 400: {@code the object provided is unrecognized (must be of type Pod): couldn't get
     * version/kind; json parse error: … (<summary of the body>)}.
     *
     * @param expectedKind the kind the endpoint serves, for the message
     */
    public static Decoded decodeObject(byte[] body, Format format, String expectedKind) {
        try {
            Decoded decoded = decode(body, format);
            JsonNode value = decoded.value();
            if (value.isNull()) {
                // Go decodes null into an object as "no fields set"; the caller's defaults and validation take over.
                return new Decoded(Json.object(), decoded.duplicateFields());
            }
            if (!value.isObject()) {
                throw new DecodeException("couldn't get version/kind; json parse error: json: cannot unmarshal " + goTypeName(value)
                        + " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
            }
            for (String field : List.of("apiVersion", "kind")) {
                JsonNode typeField = value.get(field);
                if (typeField != null && !typeField.isTextual() && !typeField.isNull()) {
                    throw new DecodeException("couldn't get version/kind; json parse error: json: cannot unmarshal " + goTypeName(typeField)
                            + " into Go struct field ." + field + " of type string");
                }
            }
            return decoded;
        } catch (DecodeException exception) {
            throw StatusException.badRequest("the object provided is unrecognized (must be of type " + expectedKind + "): "
                    + exception.getMessage() + " (" + summarize(body) + ")");
        }
    }

    /** Decodes JSON; see the class comment for what is kept and reported. */
    public static Decoded decodeJson(byte[] body) {
        try (JsonParser parser = JSON_FACTORY.createParser(body)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new DecodeException("couldn't get version/kind; json parse error: unexpected end of JSON input");
            }
            List<String> duplicates = new ArrayList<>(0);
            JsonNode value = readTree(parser, first, duplicates, false);
            if (parser.nextToken() != null) {
                throw jsonSyntaxError(body, null);
            }
            return new Decoded(value, duplicates);
        } catch (JsonProcessingException exception) {
            throw jsonSyntaxError(body, exception);
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /**
     * Decodes every document of a YAML stream ({@code ---}-separated), skipping empty ones, as kubectl does
     * for multi-document files.
     */
    public static List<Decoded> decodeYamlDocuments(byte[] body) {
        List<Decoded> documents = new ArrayList<>(1);
        try (JsonParser parser = YAML_FACTORY.createParser(body)) {
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                List<String> duplicates = new ArrayList<>(0);
                JsonNode value = readTree(parser, token, duplicates, true);
                if (!value.isNull()) {
                    documents.add(new Decoded(value, duplicates));
                }
            }
        } catch (JsonProcessingException exception) {
            throw new DecodeException("error converting YAML to JSON: yaml: " + yamlProblem(exception));
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
        return documents;
    }

    /** Compact JSON, in the tree's property order. */
    public static byte[] encodeJson(JsonNode value) {
        return Json.write(value);
    }

    /** JSON indented by two spaces, as upstream's {@code ?pretty=true}. */
    public static byte[] encodeJsonPretty(JsonNode value) {
        try {
            return Json.mapper().writer(PRETTY_PRINTER).writeValueAsBytes(value);
        } catch (JsonProcessingException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /** YAML as upstream's YAML serializer writes it (keys sorted; see the class comment). */
    public static String encodeYaml(JsonNode value) {
        StringWriter writer = new StringWriter();
        try (JsonGenerator generator = YAML_FACTORY.createGenerator(writer)) {
            writeSorted(generator, value);
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
        return writer.toString();
    }

    /** YAML bytes (UTF-8) of {@link #encodeYaml}. */
    public static byte[] encodeYamlBytes(JsonNode value) {
        return encodeYaml(value).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes to {@code out} the YAML {@link #encodeYaml} makes of the list {@code envelope} (its kind, apiVersion and
     * metadata) with {@code items} as its items, taking each item only as it is written: a long list is never held
     * parsed at once. Leaves {@code out} open.
     */
    public static void writeYamlList(OutputStream out, ObjectNode envelope, Iterator<? extends JsonNode> items) throws IOException {
        try (JsonGenerator generator = YAML_FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            generator.writeStartObject();
            Map<String, JsonNode> sorted = sortedProperties(envelope);
            // The items take their place among the sorted keys; their value comes from the iterator.
            sorted.put(LIST_ITEMS, null);
            for (Map.Entry<String, JsonNode> property : sorted.entrySet()) {
                generator.writeFieldName(property.getKey());
                if (property.getKey().equals(LIST_ITEMS)) {
                    generator.writeStartArray();
                    while (items.hasNext()) {
                        writeSorted(generator, items.next());
                    }
                    generator.writeEndArray();
                } else {
                    writeSorted(generator, property.getValue());
                }
            }
            generator.writeEndObject();
        }
    }

    private static Map<String, JsonNode> sortedProperties(JsonNode object) {
        Map<String, JsonNode> sorted = new TreeMap<>();
        for (Map.Entry<String, JsonNode> property : object.properties()) {
            sorted.put(property.getKey(), property.getValue());
        }
        return sorted;
    }

    private static void writeSorted(JsonGenerator generator, JsonNode value) throws IOException {
        if (value.isObject()) {
            generator.writeStartObject();
            Map<String, JsonNode> sorted = sortedProperties(value);
            for (Map.Entry<String, JsonNode> property : sorted.entrySet()) {
                generator.writeFieldName(property.getKey());
                writeSorted(generator, property.getValue());
            }
            generator.writeEndObject();
        } else if (value.isArray()) {
            generator.writeStartArray();
            for (JsonNode element : value) {
                writeSorted(generator, element);
            }
            generator.writeEndArray();
        } else {
            Json.mapper().writeTree(generator, value);
        }
    }

    /**
     * Builds a tree from the parser without recursion (bodies are untrusted and may nest deeply), noting
     * duplicated fields on the way.
     */
    private static JsonNode readTree(JsonParser parser, JsonToken first, List<String> duplicates, boolean yaml) throws IOException {
        JsonNodeFactory factory = Json.nodeFactory();
        if (!first.isStructStart()) {
            return scalar(parser, first, factory);
        }
        Deque<Frame> stack = new ArrayDeque<>();
        JsonNode root = first == JsonToken.START_OBJECT ? factory.objectNode() : factory.arrayNode();
        stack.push(new Frame(root, null, null, 0));
        String fieldName = null;
        while (!stack.isEmpty()) {
            JsonToken token = parser.nextToken();
            if (token == null) {
                throw new DecodeException("couldn't get version/kind; json parse error: unexpected end of JSON input");
            }
            Frame frame = stack.peek();
            if (token == JsonToken.FIELD_NAME) {
                fieldName = parser.currentName();
                if (frame.node.has(fieldName)) {
                    duplicates.add(yaml
                            ? "line " + parser.currentTokenLocation().getLineNr() + ": key " + GoStrings.quote(fieldName) + " already set in map"
                            : "duplicate field " + GoStrings.quote(frame.childPath(fieldName)));
                }
                continue;
            }
            if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                stack.pop();
                continue;
            }
            JsonNode child;
            if (token == JsonToken.START_OBJECT) {
                child = factory.objectNode();
            } else if (token == JsonToken.START_ARRAY) {
                child = factory.arrayNode();
            } else {
                child = scalar(parser, token, factory);
            }
            if (frame.node instanceof ObjectNode object) {
                object.set(fieldName, child);
            } else {
                ((ArrayNode) frame.node).add(child);
            }
            if (child.isContainerNode()) {
                // Added above, so an array element's index is the array's size less one.
                stack.push(frame.node instanceof ObjectNode ? new Frame(child, frame, fieldName, 0) : new Frame(child, frame, null, frame.node.size() - 1));
            }
        }
        return root;
    }

    /**
     * A container being read: its node and its place under its parent (a field name, or for an array element a null
     * name and an index). Paths are built only when a duplicate field needs one: building every value's path cost
     * more than reading it.
     */
    private record Frame(JsonNode node, Frame parent, String name, int index) {
        String path() {
            if (parent == null) {
                return "";
            }
            String parentPath = parent.path();
            if (name == null) {
                return parentPath + "[" + index + "]";
            }
            return parentPath.isEmpty() ? name : parentPath + "." + name;
        }

        String childPath(String child) {
            String path = path();
            return path.isEmpty() ? child : path + "." + child;
        }
    }

    private static JsonNode scalar(JsonParser parser, JsonToken token, JsonNodeFactory factory) throws IOException {
        return switch (token) {
            case VALUE_STRING -> factory.textNode(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> factory.numberNode(parser.getIntValue());
                case LONG -> factory.numberNode(parser.getLongValue());
                default -> factory.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> {
                try {
                    yield factory.numberNode(parser.getDecimalValue());
                } catch (NumberFormatException exception) {
                    // YAML's .inf and .nan have no JSON form; upstream's YAML-to-JSON conversion fails on them too.
                    throw new DecodeException("error converting YAML to JSON: json: unsupported value: " + parser.getText());
                }
            }
            case VALUE_TRUE -> factory.booleanNode(true);
            case VALUE_FALSE -> factory.booleanNode(false);
            case VALUE_NULL -> factory.nullNode();
            case VALUE_EMBEDDED_OBJECT -> factory.pojoNode(parser.getEmbeddedObject());
            default -> throw new DecodeException("couldn't get version/kind; json parse error: unexpected token " + token);
        };
    }

    private static DecodeException jsonSyntaxError(byte[] body, JsonProcessingException cause) {
        String goError = GoJsonSyntax.error(body);
        if (goError == null) {
            // Valid for Go but rejected by Jackson (e.g. a limit): Jackson's own words are the best we have.
            goError = cause == null ? "invalid JSON" : cause.getOriginalMessage();
        }
        return new DecodeException("couldn't get version/kind; json parse error: " + goError, cause);
    }

    private static String yamlProblem(JsonProcessingException exception) {
        String message = exception.getOriginalMessage();
        int line = exception.getLocation() == null ? -1 : exception.getLocation().getLineNr();
        if (message != null) {
            // SnakeYAML puts its own multi-line position report after the first line.
            int newline = message.indexOf('\n');
            message = (newline < 0 ? message : message.substring(0, newline)).strip();
        }
        return line > 0 ? "line " + line + ": " + message : String.valueOf(message);
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

    /** Upstream's summary of a body that could not be decoded: the start of it as text if it looks like an object, else as hex. */
    static String summarize(byte[] body) {
        int maxLength = 30;
        if (body.length == 0) {
            return "<empty>";
        }
        boolean truncated = body.length > maxLength;
        byte[] head = truncated ? Arrays.copyOf(body, maxLength) : body;
        String text = body[0] == '{'
                ? new String(head, StandardCharsets.UTF_8)
                : HexFormat.of().formatHex(head);
        return truncated ? text + " ..." : text;
    }
}
