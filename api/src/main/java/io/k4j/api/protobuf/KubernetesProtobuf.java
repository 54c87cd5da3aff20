package io.k4j.api.protobuf;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Upstream's protobuf wire format ({@code application/vnd.kubernetes.protobuf}) for the built-in kinds, read into
 * and written from the JSON trees the apiserver works on.
 *
 * <p>A body is the four bytes {@code k8s\0} followed by a {@code runtime.Unknown} envelope that names the
 * {@code apiVersion} and {@code kind} and carries the object's protobuf bytes in {@code raw}. {@link #decode}
 * gives exactly the JSON upstream's Go types would write for the same object: {@code kind} and
 * {@code apiVersion} first, keys in field order, zero values left out where Go's {@code omitempty} leaves them
 * out, times as RFC 3339, quantities and int-or-strings as their JSON forms, bytes as base64, embedded objects
 * as JSON. {@link #encode} is the reverse.
 *
 * <p>The messages are this module's copies of upstream's {@code generated.proto} files (same packages, names
 * and field numbers) for meta/v1, runtime, resource, intstr and the groups core, apps, batch, rbac,
 * scheduling, authentication, authorization, policy, coordination, discovery, events, storage and autoscaling
 * (all v1). Fields a client sends that the copies do not know are dropped, as upstream drops unknown fields.
 *
 * <p>Stateless and thread-safe; the schema is loaded once, on first use.
 */
public final class KubernetesProtobuf {
    /** The media type kubectl and client-go send built-in objects as. */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

    private static final byte[] MAGIC = {'k', '8', 's', 0};
    /** Embedded objects may hold further embedded objects; a hostile body must not exhaust the stack. */
    private static final int MAX_NESTING = 16;

    private static final class Holder {
        static final KubernetesProtobuf INSTANCE = new KubernetesProtobuf(ProtobufSchema.load(), GoJsonRules.load());
    }

    private final ProtobufSchema schema;
    private final ProtobufJson json;
    private final ThreadLocal<int[]> nesting = ThreadLocal.withInitial(() -> new int[1]);

    private KubernetesProtobuf(ProtobufSchema schema, GoJsonRules rules) {
        this.schema = requireNonNull(schema, "schema is null");
        this.json = new ProtobufJson(rules, this::decodeNested);
    }

    /** Whether a {@code Content-Type} (parameters allowed, case-insensitive) is upstream's protobuf media type. */
    public static boolean isProtobuf(String contentType) {
        if (contentType == null) {
            return false;
        }
        int parameters = contentType.indexOf(';');
        String mediaType = (parameters < 0 ? contentType : contentType.substring(0, parameters)).strip();
        return mediaType.toLowerCase(Locale.ROOT).equals(MEDIA_TYPE);
    }

    /**
     * Decodes a protobuf request body into upstream's JSON for the same object.
     *
     * @throws StatusException 400 Bad Request, in the words of upstream's protobuf serializer, when the body is
     *     not a protobuf object, names no kind or a kind this schema does not have, or does not parse
     */
    public static ObjectNode decode(byte[] body) {
        return Holder.INSTANCE.decodeObject(requireNonNull(body, "body is null"), null);
    }

    /**
     * Decodes like {@link #decode(byte[])}, taking the kind and version the envelope leaves empty from
     * {@code defaults} (the kind the request's URL implies), as upstream's decoder does.
     */
    public static ObjectNode decode(byte[] body, GroupVersionKind defaults) {
        return Holder.INSTANCE.decodeObject(requireNonNull(body, "body is null"), requireNonNull(defaults, "defaults is null"));
    }

    /**
     * Encodes an object (with {@code apiVersion} and {@code kind}) as upstream's protobuf serializer would.
     *
     * @throws IllegalArgumentException when the kind is not in the schema or the object has a field or value the
     *     protobuf message cannot hold; the caller can answer in JSON instead
     */
    public static byte[] encode(ObjectNode object) {
        return Holder.INSTANCE.encodeObject(requireNonNull(object, "object is null"));
    }

    static boolean hasMagic(byte[] bytes) {
        return bytes.length >= MAGIC.length && Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    private ObjectNode decodeObject(byte[] body, GroupVersionKind defaults) {
        try {
            return decodeEnvelope(body, defaults);
        } catch (MalformedProtobufException exception) {
            throw StatusException.badRequest(exception.getMessage());
        }
    }

    private JsonNode decodeNested(byte[] body) {
        int[] depth = nesting.get();
        if (depth[0] >= MAX_NESTING) {
            throw new MalformedProtobufException("embedded objects are nested more than " + MAX_NESTING + " deep");
        }
        depth[0]++;
        try {
            return decodeEnvelope(body, null);
        } finally {
            depth[0]--;
        }
    }

    private ObjectNode decodeEnvelope(byte[] body, GroupVersionKind defaults) {
        if (body.length == 0) {
            throw new MalformedProtobufException("empty data");
        }
        if (!hasMagic(body)) {
            throw new MalformedProtobufException("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
        }
        if (body.length == MAGIC.length) {
            throw new MalformedProtobufException("empty body");
        }
        DynamicMessage unknown = parse(schema.unknown(), ByteString.copyFrom(body, MAGIC.length, body.length - MAGIC.length));
        DynamicMessage typeMeta = (DynamicMessage) field(unknown, "typeMeta");
        String apiVersion = (String) field(typeMeta, "apiVersion");
        String kind = (String) field(typeMeta, "kind");
        if (defaults != null) {
            if (kind.isEmpty()) {
                kind = defaults.kind();
            }
            if (apiVersion.isEmpty() && !defaults.version().isEmpty()) {
                apiVersion = defaults.apiVersion();
            }
        }
        String goTypeMeta = "runtime.TypeMeta{APIVersion:\"" + apiVersion + "\", Kind:\"" + kind + "\"}";
        if (kind.isEmpty()) {
            throw new MalformedProtobufException("Object 'Kind' is missing in '" + goTypeMeta + "'");
        }
        if (apiVersion.isEmpty()) {
            throw new MalformedProtobufException("Object 'apiVersion' is missing in '" + goTypeMeta + "'");
        }
        String contentEncoding = (String) field(unknown, "contentEncoding");
        if (!contentEncoding.isEmpty()) {
            throw new MalformedProtobufException("unsupported content encoding \"" + contentEncoding + "\"");
        }
        Descriptor type = schema.kind(apiVersion, kind).orElse(null);
        if (type == null) {
            throw new MalformedProtobufException("no kind \"" + kind + "\" is registered for version \"" + apiVersion
                    + "\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"");
        }
        ObjectNode fields = json.toJson(parse(type, (ByteString) field(unknown, "raw")));
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        // Go's TypeMeta declares kind before apiVersion, so upstream's JSON starts with them in that order
        object.put("kind", kind);
        object.put("apiVersion", apiVersion);
        object.setAll(fields);
        return object;
    }

    private static DynamicMessage parse(Descriptor type, ByteString bytes) {
        try {
            return DynamicMessage.parseFrom(type, bytes);
        } catch (InvalidProtocolBufferException exception) {
            throw new MalformedProtobufException("proto: " + type.getName() + ": " + exception.getMessage());
        }
    }

    private static Object field(DynamicMessage message, String name) {
        return message.getField(message.getDescriptorForType().findFieldByName(name));
    }

    private byte[] encodeObject(ObjectNode object) {
        JsonNode apiVersionNode = object.get("apiVersion");
        JsonNode kindNode = object.get("kind");
        if (apiVersionNode == null || !apiVersionNode.isTextual() || kindNode == null || !kindNode.isTextual()) {
            throw new IllegalArgumentException("an object needs a string apiVersion and kind to be encoded");
        }
        String apiVersion = apiVersionNode.textValue();
        String kind = kindNode.textValue();
        Descriptor type = schema.kind(apiVersion, kind)
                .orElseThrow(() -> new IllegalArgumentException("no protobuf message for kind " + kind + " in " + apiVersion));
        ObjectNode fields = object.deepCopy();
        fields.remove("apiVersion");
        fields.remove("kind");
        DynamicMessage message = json.fromJson(type, fields, "");
        Descriptor unknownType = schema.unknown();
        Descriptor typeMetaType = unknownType.findFieldByName("typeMeta").getMessageType();
        DynamicMessage typeMeta = DynamicMessage.newBuilder(typeMetaType)
                .setField(typeMetaType.findFieldByName("apiVersion"), apiVersion)
                .setField(typeMetaType.findFieldByName("kind"), kind)
                .build();
        // gogo writes the envelope's strings even when empty; so do we, byte for byte like client-go
        DynamicMessage unknown = DynamicMessage.newBuilder(unknownType)
                .setField(unknownType.findFieldByName("typeMeta"), typeMeta)
                .setField(unknownType.findFieldByName("raw"), message.toByteString())
                .setField(unknownType.findFieldByName("contentEncoding"), "")
                .setField(unknownType.findFieldByName("contentType"), "")
                .build();
        ByteArrayOutputStream output = new ByteArrayOutputStream(MAGIC.length + unknown.getSerializedSize());
        try {
            output.write(MAGIC);
            unknown.writeTo(output);
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
        return output.toByteArray();
    }
}
