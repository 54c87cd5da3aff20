package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An object encoded once for storage, from which its served form (with {@code metadata.resourceVersion}) is made by
 * splicing the revision in rather than encoding the tree again. The stored bytes are exactly what
 * {@link Json#write} gives for the object without a resourceVersion, and the served bytes exactly what it gives for
 * the object with the resourceVersion appended to its metadata, as a tree read from storage gets it.
 *
 * <p>Immutable; {@link #stored()} must not be modified.
 */
final class StoredJson {
    private static final String METADATA = "metadata";
    private static final String RESOURCE_VERSION = "resourceVersion";
    /** Room for a typical pod with its managedFields, so the buffer rarely grows. */
    private static final int INITIAL_BUFFER_BYTES = 4096;

    private final byte[] stored;
    /** Where, in the stored bytes, the served form's resourceVersion goes (before metadata's closing brace); -1 when there is no metadata object. */
    private final int resourceVersionAt;
    private final boolean metadataEmpty;

    private StoredJson(byte[] stored, int resourceVersionAt, boolean metadataEmpty) {
        this.stored = requireNonNull(stored, "stored is null");
        this.resourceVersionAt = resourceVersionAt;
        this.metadataEmpty = metadataEmpty;
    }

    /** Encodes {@code object} without its {@code metadata.resourceVersion}; the object is not modified. */
    static StoredJson encode(ObjectNode object) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(INITIAL_BUFFER_BYTES);
        int resourceVersionAt = -1;
        boolean metadataEmpty = true;
        // One serializer provider for the whole object: writeTree per field would set up a provider (and flush) for
        // each of the dozen top-level and metadata fields, a third of the encoding's time. The provider comes from the
        // shared mapper, so the bytes are what Json.write gives.
        SerializerProvider provider = Json.mapper().getSerializerProviderInstance();
        try (JsonGenerator generator = Json.mapper().createGenerator(out)) {
            generator.writeStartObject();
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                generator.writeFieldName(field.getKey());
                if (resourceVersionAt < 0 && field.getKey().equals(METADATA) && field.getValue() instanceof ObjectNode metadata) {
                    generator.writeStartObject();
                    for (Map.Entry<String, JsonNode> metadataField : metadata.properties()) {
                        if (!metadataField.getKey().equals(RESOURCE_VERSION)) {
                            generator.writeFieldName(metadataField.getKey());
                            ((JsonSerializable) metadataField.getValue()).serialize(generator, provider);
                            metadataEmpty = false;
                        }
                    }
                    generator.flush();
                    resourceVersionAt = out.size();
                    generator.writeEndObject();
                } else {
                    ((JsonSerializable) field.getValue()).serialize(generator, provider);
                }
            }
            generator.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new StoredJson(out.toByteArray(), resourceVersionAt, metadataEmpty);
    }

    /** The bytes to store. */
    byte[] stored() {
        return stored;
    }

    /** The served JSON at {@code revision}: the stored bytes with {@code "resourceVersion":"<revision>"} last in the metadata. */
    byte[] served(long revision) {
        if (resourceVersionAt < 0) {
            // No metadata object to carry the version (never so for a stored object); encode the slow way.
            ObjectNode object = (ObjectNode) Json.readWithoutNameTable(stored);
            ObjectMetadata.of(object).put(RESOURCE_VERSION, Long.toString(revision));
            return Json.write(object);
        }
        byte[] insert = ((metadataEmpty ? "" : ",") + "\"" + RESOURCE_VERSION + "\":\"" + revision + "\"").getBytes(StandardCharsets.US_ASCII);
        byte[] served = new byte[stored.length + insert.length];
        System.arraycopy(stored, 0, served, 0, resourceVersionAt);
        System.arraycopy(insert, 0, served, resourceVersionAt, insert.length);
        System.arraycopy(stored, resourceVersionAt, served, resourceVersionAt + insert.length, stored.length - resourceVersionAt);
        return served;
    }
}
