package io.k4j.api.protobuf;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.k4j.api.codec.Json;
import io.k4j.api.codec.Timestamps;
import io.k4j.api.protobuf.GoJsonRules.Presence;
import io.k4j.api.quantity.Quantity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Converts between Kubernetes protobuf messages and the JSON upstream's Go types give the same object: field
 * names, which keys appear ({@link GoJsonRules}), inline embedded structs, and the apimachinery types whose JSON
 * is not their protobuf shape (Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1, named
 * string slices).
 *
 * <p>Thread-safe: the only state is a cache of per-message JSON layouts.
 */
final class ProtobufJson {
    /** Go's {@code time.Time{}}: the zero time, which {@code metav1.Time} writes as JSON {@code null}. */
    private static final Instant GO_ZERO_TIME = Instant.parse("0001-01-01T00:00:00Z");

    private final GoJsonRules rules;
    private final Function<byte[], JsonNode> nestedDecoder;
    private final JsonNodeFactory nodes = JsonNodeFactory.instance;
    private final Map<Descriptor, Map<String, FieldDescriptor>> layouts = new ConcurrentHashMap<>();

    /**
     * @param nestedDecoder decodes a {@code RawExtension} that holds a whole protobuf object (with the
     *     {@code k8s\0} prefix), as watch events and lists embed them
     */
    ProtobufJson(GoJsonRules rules, Function<byte[], JsonNode> nestedDecoder) {
        this.rules = requireNonNull(rules, "rules is null");
        this.nestedDecoder = requireNonNull(nestedDecoder, "nestedDecoder is null");
    }

    // ---- protobuf to JSON

    ObjectNode toJson(Message message) {
        ObjectNode object = nodes.objectNode();
        writeFields(message, object);
        return object;
    }

    private void writeFields(Message message, ObjectNode object) {
        Descriptor type = message.getDescriptorForType();
        for (Integer number : message.getUnknownFields().asMap().keySet()) {
            FieldDescriptor known = type.findFieldByNumber(number);
            if (known != null) {
                // protobuf-java keeps a field with the wrong wire type as unknown; gogo rejects it
                throw new MalformedProtobufException("proto: wrong wireType for field " + type.getName() + "." + known.getName());
            }
        }
        for (FieldDescriptor field : type.getFields()) {
            if (rules.isInline(field)) {
                if (message.hasField(field)) {
                    writeFields((Message) message.getField(field), object);
                }
                continue;
            }
            String name = rules.jsonName(field);
            // Go writes a nil slice, map or pointer without omitempty as null; on the wire it is simply absent
            boolean nullWhenAbsent = rules.presence(field) == Presence.ALWAYS;
            if (field.isMapField()) {
                if (message.getRepeatedFieldCount(field) > 0) {
                    writeMap(message, field, name, object);
                } else if (nullWhenAbsent) {
                    object.putNull(name);
                }
            } else if (field.isRepeated()) {
                int count = message.getRepeatedFieldCount(field);
                if (count > 0) {
                    ArrayNode array = object.putArray(name);
                    for (int i = 0; i < count; i++) {
                        array.add(value(field, message.getRepeatedField(field, i)));
                    }
                } else if (nullWhenAbsent) {
                    object.putNull(name);
                }
            } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                if (message.hasField(field)) {
                    object.set(name, value(field, message.getField(field)));
                } else if (nullWhenAbsent) {
                    object.putNull(name);
                }
            } else {
                boolean present = message.hasField(field);
                Object value = message.getField(field);
                boolean include = switch (rules.presence(field)) {
                    case POINTER -> present;
                    case ALWAYS -> true;
                    case OMIT_EMPTY -> present && !isZero(value);
                };
                if (include) {
                    object.set(name, value(field, value));
                }
            }
        }
    }

    private void writeMap(Message message, FieldDescriptor field, String name, ObjectNode object) {
        int count = message.getRepeatedFieldCount(field);
        FieldDescriptor keyField = field.getMessageType().findFieldByName("key");
        FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
        // Go writes map keys sorted; a key repeated on the wire keeps its last value, as Go's map assignment does
        Map<String, JsonNode> entries = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            Message entry = (Message) message.getRepeatedField(field, i);
            entries.put(String.valueOf(entry.getField(keyField)), value(valueField, entry.getField(valueField)));
        }
        ObjectNode map = object.putObject(name);
        entries.forEach(map::set);
    }

    private static boolean isZero(Object value) {
        return switch (value) {
            case String text -> text.isEmpty();
            case Boolean bool -> !bool;
            case Integer number -> number == 0;
            case Long number -> number == 0;
            case Float number -> number == 0;
            case Double number -> number == 0;
            case ByteString bytes -> bytes.isEmpty();
            default -> false;
        };
    }

    private JsonNode value(FieldDescriptor field, Object value) {
        return switch (field.getJavaType()) {
            case STRING -> TextNode.valueOf((String) value);
            case BOOLEAN -> BooleanNode.valueOf((Boolean) value);
            case INT -> IntNode.valueOf((Integer) value);
            case LONG -> number((Long) value);
            case FLOAT -> DoubleNode.valueOf((Float) value);
            case DOUBLE -> DoubleNode.valueOf((Double) value);
            // Go's encoding/json writes []byte as standard base64
            case BYTE_STRING -> TextNode.valueOf(Base64.getEncoder().encodeToString(((ByteString) value).toByteArray()));
            case MESSAGE -> messageValue((Message) value);
            case ENUM -> throw new IllegalStateException("Kubernetes protobuf has no enums: " + field.getFullName());
        };
    }

    /** Numbers as Jackson reads them from JSON text, so trees compare equal to parsed JSON. */
    private static JsonNode number(long value) {
        return value == (int) value ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
    }

    private JsonNode messageValue(Message message) {
        String type = message.getDescriptorForType().getFullName();
        return switch (type) {
            case ProtobufSchema.TIME -> time(message, false);
            case ProtobufSchema.MICRO_TIME -> time(message, true);
            case ProtobufSchema.DURATION -> TextNode.valueOf(GoDuration.format(longField(message, "duration")));
            case ProtobufSchema.QUANTITY -> TextNode.valueOf(quantity(stringField(message, "string")));
            case ProtobufSchema.INT_OR_STRING -> intOrString(message);
            case ProtobufSchema.RAW_EXTENSION -> raw(bytesField(message, "raw"));
            case ProtobufSchema.FIELDS_V1 -> raw(bytesField(message, "Raw"));
            default -> ProtobufSchema.STRING_LISTS.contains(type) ? stringList(message) : toJson(message);
        };
    }

    private JsonNode time(Message message, boolean micro) {
        long seconds = longField(message, "seconds");
        int nanos = (int) longField(message, "nanos");
        if (seconds == 0 && nanos == 0 && !hasField(message, "seconds") && !hasField(message, "nanos")) {
            return NullNode.getInstance();
        }
        Instant instant;
        try {
            instant = Instant.ofEpochSecond(seconds, nanos);
        } catch (DateTimeException | ArithmeticException exception) {
            throw new MalformedProtobufException("time out of range: " + seconds + "s " + nanos + "ns");
        }
        if (instant.equals(GO_ZERO_TIME)) {
            return NullNode.getInstance();
        }
        return TextNode.valueOf(micro ? Timestamps.formatMicro(instant) : Timestamps.format(instant));
    }

    private static String quantity(String text) {
        if (text.isEmpty()) {
            return "0";
        }
        try {
            return Quantity.parse(text).toString();
        } catch (IllegalArgumentException exception) {
            throw new MalformedProtobufException(exception.getMessage());
        }
    }

    private JsonNode intOrString(Message message) {
        long type = longField(message, "type");
        if (type == 0) {
            return IntNode.valueOf((int) longField(message, "intVal"));
        }
        if (type == 1) {
            return TextNode.valueOf(stringField(message, "strVal"));
        }
        throw new MalformedProtobufException("impossible IntOrString.Type");
    }

    private JsonNode raw(ByteString raw) {
        if (raw.isEmpty()) {
            return NullNode.getInstance();
        }
        byte[] bytes = raw.toByteArray();
        if (KubernetesProtobuf.hasMagic(bytes)) {
            return nestedDecoder.apply(bytes);
        }
        try {
            return Json.mapper().readTree(bytes);
        } catch (JsonProcessingException exception) {
            throw new MalformedProtobufException("invalid JSON in an embedded object: " + exception.getOriginalMessage());
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    private JsonNode stringList(Message message) {
        ArrayNode array = nodes.arrayNode();
        FieldDescriptor items = message.getDescriptorForType().findFieldByName("items");
        for (int i = 0; i < message.getRepeatedFieldCount(items); i++) {
            array.add((String) message.getRepeatedField(items, i));
        }
        return array;
    }

    private static boolean hasField(Message message, String name) {
        return message.hasField(message.getDescriptorForType().findFieldByName(name));
    }

    private static long longField(Message message, String name) {
        return ((Number) message.getField(message.getDescriptorForType().findFieldByName(name))).longValue();
    }

    private static String stringField(Message message, String name) {
        return (String) message.getField(message.getDescriptorForType().findFieldByName(name));
    }

    private static ByteString bytesField(Message message, String name) {
        return (ByteString) message.getField(message.getDescriptorForType().findFieldByName(name));
    }

    // ---- JSON to protobuf

    /**
     * Builds a message from its JSON.
     *
     * @param path where the object sits, for error messages, e.g. {@code spec.template}
     * @throws IllegalArgumentException when the JSON has a field the message lacks or a value of the wrong type
     */
    DynamicMessage fromJson(Descriptor type, ObjectNode object, String path) {
        Map<String, FieldDescriptor> layout = layout(type);
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
        Map<FieldDescriptor, ObjectNode> inlined = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> entries = object.fields();
        while (entries.hasNext()) {
            Map.Entry<String, JsonNode> entry = entries.next();
            String name = entry.getKey();
            FieldDescriptor field = layout.get(name);
            if (field == null && isTypeMeta(name, entry.getValue())) {
                // Go types embed TypeMeta for JSON but leave it out of protobuf (e.g. an Eviction's deleteOptions)
                continue;
            }
            if (field == null) {
                throw new IllegalArgumentException(join(path, name) + ": " + type.getFullName() + " has no such field");
            }
            if (rules.isInline(field)) {
                inlined.computeIfAbsent(field, ignored -> nodes.objectNode()).set(name, entry.getValue());
            } else if (!entry.getValue().isNull()) {
                setField(builder, field, entry.getValue(), join(path, name));
            } else if (isTime(field)) {
                // a null time is Go's zero time, which gogo writes as an empty message (creationTimestamp: null)
                builder.setField(field, DynamicMessage.getDefaultInstance(field.getMessageType()));
            }
        }
        inlined.forEach((field, fields) -> builder.setField(field, fromJson(field.getMessageType(), fields, path)));
        return builder.build();
    }

    private static boolean isTime(FieldDescriptor field) {
        if (field.isRepeated() || field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
            return false;
        }
        String type = field.getMessageType().getFullName();
        return type.equals(ProtobufSchema.TIME) || type.equals(ProtobufSchema.MICRO_TIME);
    }

    private static boolean isTypeMeta(String name, JsonNode value) {
        return (name.equals("apiVersion") || name.equals("kind")) && (value.isTextual() || value.isNull());
    }

    /** Every JSON name of a message, mapped to the field that holds it (an inline field for an embedded one). */
    private Map<String, FieldDescriptor> layout(Descriptor type) {
        Map<String, FieldDescriptor> cached = layouts.get(type);
        if (cached != null) {
            return cached;
        }
        Map<String, FieldDescriptor> layout = new LinkedHashMap<>();
        for (FieldDescriptor field : type.getFields()) {
            if (rules.isInline(field)) {
                for (String name : layout(field.getMessageType()).keySet()) {
                    layout.put(name, field);
                }
            } else {
                layout.put(rules.jsonName(field), field);
            }
        }
        Map<String, FieldDescriptor> result = Map.copyOf(layout);
        layouts.put(type, result);
        return result;
    }

    private void setField(DynamicMessage.Builder builder, FieldDescriptor field, JsonNode value, String path) {
        if (field.isMapField()) {
            if (!value.isObject()) {
                throw mismatch(path, "an object", value);
            }
            Descriptor entryType = field.getMessageType();
            FieldDescriptor keyField = entryType.findFieldByName("key");
            FieldDescriptor valueField = entryType.findFieldByName("value");
            Map<String, JsonNode> sorted = new TreeMap<>();
            value.fields().forEachRemaining(entry -> sorted.put(entry.getKey(), entry.getValue()));
            for (Map.Entry<String, JsonNode> entry : sorted.entrySet()) {
                DynamicMessage.Builder entryBuilder = DynamicMessage.newBuilder(entryType).setField(keyField, entry.getKey());
                if (!entry.getValue().isNull()) {
                    entryBuilder.setField(valueField, scalarOrMessage(valueField, entry.getValue(), path + "." + entry.getKey()));
                }
                builder.addRepeatedField(field, entryBuilder.build());
            }
        } else if (field.isRepeated()) {
            if (!value.isArray()) {
                throw mismatch(path, "an array", value);
            }
            for (int i = 0; i < value.size(); i++) {
                JsonNode item = value.get(i);
                String itemPath = path + "[" + i + "]";
                // Go decodes a null item into the zero value of the element type
                builder.addRepeatedField(field, item.isNull() ? zero(field) : scalarOrMessage(field, item, itemPath));
            }
        } else {
            builder.setField(field, scalarOrMessage(field, value, path));
        }
    }

    private static Object zero(FieldDescriptor field) {
        return field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
                ? DynamicMessage.getDefaultInstance(field.getMessageType())
                : field.getDefaultValue();
    }

    private Object scalarOrMessage(FieldDescriptor field, JsonNode value, String path) {
        return switch (field.getJavaType()) {
            case STRING -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "a string", value);
                }
                yield value.textValue();
            }
            case BOOLEAN -> {
                if (!value.isBoolean()) {
                    throw mismatch(path, "a boolean", value);
                }
                yield value.booleanValue();
            }
            case INT -> {
                if (!value.isIntegralNumber() || !value.canConvertToInt()) {
                    throw mismatch(path, "a 32-bit integer", value);
                }
                yield value.intValue();
            }
            case LONG -> {
                if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                    throw mismatch(path, "a 64-bit integer", value);
                }
                yield value.longValue();
            }
            case FLOAT -> {
                if (!value.isNumber()) {
                    throw mismatch(path, "a number", value);
                }
                yield value.floatValue();
            }
            case DOUBLE -> {
                if (!value.isNumber()) {
                    throw mismatch(path, "a number", value);
                }
                yield value.doubleValue();
            }
            case BYTE_STRING -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "a base64 string", value);
                }
                try {
                    yield ByteString.copyFrom(Base64.getDecoder().decode(value.textValue()));
                } catch (IllegalArgumentException exception) {
                    throw new IllegalArgumentException(path + ": illegal base64 data: " + exception.getMessage(), exception);
                }
            }
            case MESSAGE -> messageFromJson(field.getMessageType(), value, path);
            case ENUM -> throw new IllegalStateException("Kubernetes protobuf has no enums: " + field.getFullName());
        };
    }

    private DynamicMessage messageFromJson(Descriptor type, JsonNode value, String path) {
        String name = type.getFullName();
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
        switch (name) {
            case ProtobufSchema.TIME, ProtobufSchema.MICRO_TIME -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "an RFC 3339 time string", value);
                }
                Instant instant;
                try {
                    instant = Timestamps.parse(value.textValue());
                } catch (IllegalArgumentException exception) {
                    throw new IllegalArgumentException(path + ": " + exception.getMessage(), exception);
                }
                set(builder, "seconds", instant.getEpochSecond());
                set(builder, "nanos", instant.getNano());
            }
            case ProtobufSchema.DURATION -> {
                if (!value.isTextual()) {
                    throw mismatch(path, "a duration string", value);
                }
                try {
                    set(builder, "duration", GoDuration.parse(value.textValue()));
                } catch (IllegalArgumentException exception) {
                    throw new IllegalArgumentException(path + ": " + exception.getMessage(), exception);
                }
            }
            case ProtobufSchema.QUANTITY -> {
                if (!value.isTextual() && !value.isNumber()) {
                    throw mismatch(path, "a quantity", value);
                }
                try {
                    set(builder, "string", Quantity.fromJson(value).toString());
                } catch (IllegalArgumentException exception) {
                    throw new IllegalArgumentException(path + ": " + exception.getMessage(), exception);
                }
            }
            case ProtobufSchema.INT_OR_STRING -> {
                if (value.isIntegralNumber() && value.canConvertToInt()) {
                    set(builder, "type", 0L);
                    set(builder, "intVal", value.intValue());
                } else if (value.isTextual()) {
                    set(builder, "type", 1L);
                    set(builder, "strVal", value.textValue());
                } else {
                    throw mismatch(path, "an integer or a string", value);
                }
            }
            case ProtobufSchema.RAW_EXTENSION -> set(builder, "raw", ByteString.copyFrom(Json.write(value)));
            case ProtobufSchema.FIELDS_V1 -> set(builder, "Raw", ByteString.copyFrom(Json.write(value)));
            default -> {
                if (ProtobufSchema.STRING_LISTS.contains(name)) {
                    if (!value.isArray()) {
                        throw mismatch(path, "an array of strings", value);
                    }
                    FieldDescriptor items = type.findFieldByName("items");
                    List<JsonNode> elements = new ArrayList<>();
                    value.forEach(elements::add);
                    for (int i = 0; i < elements.size(); i++) {
                        builder.addRepeatedField(items, scalarOrMessage(items, elements.get(i), path + "[" + i + "]"));
                    }
                } else {
                    if (!value.isObject()) {
                        throw mismatch(path, "an object", value);
                    }
                    return fromJson(type, (ObjectNode) value, path);
                }
            }
        }
        return builder.build();
    }

    private static void set(DynamicMessage.Builder builder, String field, Object value) {
        builder.setField(builder.getDescriptorForType().findFieldByName(field), value);
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static IllegalArgumentException mismatch(String path, String expected, JsonNode actual) {
        return new IllegalArgumentException(path + ": expected " + expected + ", got " + actual.getNodeType().name().toLowerCase() + " " + abbreviate(actual.toString()));
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
