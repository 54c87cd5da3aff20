package io.k4j.controllerkit.informers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserSequence;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.k4j.api.codec.Json;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * fabric8's serialization with a cheaper decoding of watch events, for the clients of in-process components whose
 * informers decode every event of the resources they watch. fabric8 reads a watch event's {@code object} into a tree
 * first, to learn its kind, and then binds the tree to the model class: two passes and a tree of nodes per event.
 * Here the kind and apiVersion are read as the first fields of the object (where the apiserver writes them; any that
 * come before are kept in a small buffer), and the rest of the object is bound straight from the text. Events this
 * cannot type (a kind no model class is registered for, no kind at all) go to fabric8's own decoding, so the result
 * is always the one fabric8 would give.
 *
 * <p>What informers keep of many objects is made compact: model objects without unknown fields share one empty
 * {@code additionalProperties} map, and the objects of watch events one empty list and map for their empty list and
 * map fields ({@link EmptyCollections}); equal short strings share one instance ({@link CanonicalStrings}).
 *
 * <p>With {@code dropManagedFields}, an event's {@code metadata.managedFields} is cut from its text before it is parsed
 * ({@link ManagedFieldsCut}), as the informers' caches would drop it anyway ({@link ManagedFieldsStrippingStore},
 * upstream's {@code TransformStripManagedFields}); an object written back without managedFields leaves the server's
 * unchanged.
 * Other responses (GET, LIST, writes) keep them.
 *
 * <p>Serializations built with one {@link SharedEventDecoding} decode each event text once between them. Thread-safe.
 */
public final class StreamingSerialization extends KubernetesSerialization {
    private final ObjectMapper mapper;
    private final boolean dropManagedFields;
    private final Optional<SharedEventDecoding> sharedDecoding;
    private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

    public StreamingSerialization(boolean dropManagedFields) {
        this(newMapper(), dropManagedFields, Optional.empty());
    }

    /** @param sharedDecoding shared only by serializations with the same {@code dropManagedFields} */
    public StreamingSerialization(boolean dropManagedFields, SharedEventDecoding sharedDecoding) {
        this(newMapper(), dropManagedFields, Optional.of(sharedDecoding));
    }

    /** A plain mapper whose buffers come from a pool all threads share (see {@link Json#BUFFERS}). */
    private static ObjectMapper newMapper() {
        return new ObjectMapper(JsonFactory.builder().recyclerPool(Json.BUFFERS).build());
    }

    private StreamingSerialization(ObjectMapper mapper, boolean dropManagedFields, Optional<SharedEventDecoding> sharedDecoding) {
        // fabric8 configures the mapper (modules, inclusion, its polymorphic resource deserializer) in this constructor.
        super(mapper, true);
        mapper.registerModule(new SimpleModule("k4j-compact-objects")
                .setDeserializerModifier(new EmptyCollections())
                .addDeserializer(String.class, new CanonicalStrings()));
        this.mapper = mapper;
        this.dropManagedFields = dropManagedFields;
        this.sharedDecoding = requireNonNull(sharedDecoding, "sharedDecoding is null");
    }

    @Override
    public <T> T unmarshal(String text, Class<T> type) {
        if (type == WatchEvent.class) {
            WatchEvent event = sharedDecoding.isPresent() ? sharedDecoding.get().event(text, this::decodeWatchEvent) : decodeWatchEvent(text);
            if (event != null) {
                return type.cast(event);
            }
        }
        return super.unmarshal(text, type);
    }

    /** The event, or null when it is not one this decoding can type (fabric8's own decoding then takes it). */
    private WatchEvent decodeWatchEvent(String text) {
        try (JsonParser parser = mapper.createParser(dropManagedFields ? ManagedFieldsCut.withoutManagedFields(text) : text)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            WatchEvent event = new WatchEvent();
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "type" -> {
                        if (value != JsonToken.VALUE_STRING) {
                            return null;
                        }
                        event.setType(parser.getText());
                    }
                    case "object" -> {
                        KubernetesResource object = value == JsonToken.START_OBJECT ? decodeResource(parser) : null;
                        if (object == null) {
                            return null;
                        }
                        event.setObject(object);
                    }
                    default -> {
                        // fabric8 keeps unknown top-level fields; there are none in an apiserver's events.
                        return null;
                    }
                }
            }
            return parser.currentToken() == JsonToken.END_OBJECT && parser.nextToken() == null ? event : null;
        } catch (IOException | RuntimeException e) {
            // Malformed or surprising input: fabric8's own decoding reports it as it always has.
            return null;
        }
    }

    /**
     * Binds the object the parser stands at the start of, once its kind and apiVersion are known. When they are its
     * first fields, as the apiserver writes them, the rest is bound straight from the text; fields before them are
     * replayed from a buffer before the rest. Null when the object has no registered kind.
     */
    private KubernetesResource decodeResource(JsonParser parser) throws IOException {
        TokenBuffer head = null;
        String kind = null;
        String apiVersion = null;
        while (kind == null || apiVersion == null) {
            if (parser.nextToken() != JsonToken.FIELD_NAME) {
                return null;
            }
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_STRING && field.equals("kind")) {
                kind = parser.getText();
            } else if (value == JsonToken.VALUE_STRING && field.equals("apiVersion")) {
                apiVersion = parser.getText();
            } else {
                if (head == null) {
                    head = new TokenBuffer(parser, null);
                    head.writeStartObject();
                }
                head.writeFieldName(field);
                head.copyCurrentStructure(parser);
            }
        }
        Class<? extends KubernetesResource> type = getRegisteredKubernetesResource(apiVersion, kind);
        if (type == null) {
            return null;
        }
        ObjectReader reader = readers.computeIfAbsent(type, key -> mapper.readerFor(key).withAttribute(EmptyCollections.WATCHED_OBJECTS, Boolean.TRUE));
        if (head != null) {
            head.writeStringField("kind", kind);
            head.writeStringField("apiVersion", apiVersion);
            return reader.readValue(JsonParserSequence.createFlattened(false, head.asParser(parser.getCodec()), parser));
        }
        // A bean binds from within its object as well: the parser moves to the field after apiVersion. Every
        // token then comes from the text itself, not through a sequence of parsers.
        if (parser.nextToken() != JsonToken.FIELD_NAME) {
            return null;
        }
        KubernetesResource object = reader.readValue(parser);
        // The model's own kind and apiVersion, which it starts with, are those it is registered for: the object is
        // what fabric8 would give. Anything else goes to fabric8's decoding.
        return object instanceof HasMetadata resource && kind.equals(resource.getKind()) && apiVersion.equals(resource.getApiVersion())
                ? object : null;
    }
}
