package io.k4j.apiserver.endpoints;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.ResourceType;
import io.k4j.apiserver.registry.generic.CachedObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON list written from the bytes of its items, the cached objects' own or, for a Table or a
 * PartialObjectMetadataList, each row or item encoded as soon as it was made: the list envelope, then each item's
 * bytes, comma-separated. Its length is known before a byte is written, so the response can declare it and
 * stream the body (see {@link HttpExchange#respond(int, String, int, HttpExchange.BodyWriter)}).
 */
final class ListBody implements HttpExchange.BodyWriter {
    private static final byte[] END = "]}".getBytes(StandardCharsets.UTF_8);

    private final byte[] head;
    private final List<byte[]> items;
    private final int length;

    /** The type's list of cached objects. */
    static ListBody of(ResourceType type, ObjectNode listMetadata, List<CachedObject> items) {
        List<byte[]> json = new ArrayList<>(items.size());
        for (CachedObject item : items) {
            json.add(item.json());
        }
        return list(type.listKind(), type.gvk().apiVersion(), listMetadata, json);
    }

    /** A list of kind {@code kind} whose items are the given JSON objects. */
    static ListBody list(String kind, String apiVersion, ObjectNode listMetadata, List<byte[]> items) {
        ObjectNode envelope = Json.object();
        envelope.put("kind", kind);
        envelope.put("apiVersion", apiVersion);
        envelope.set("metadata", listMetadata);
        return new ListBody(envelope, "items", items);
    }

    /** The fields of {@code envelope} (at least one), then the items as its last field, the array {@code arrayName}. */
    ListBody(ObjectNode envelope, String arrayName, List<byte[]> items) {
        if (envelope.isEmpty()) {
            throw new IllegalArgumentException("the envelope of a list needs a field before its items");
        }
        String fields = Json.writeString(envelope);
        this.head = (fields.substring(0, fields.length() - 1) + ",\"" + arrayName + "\":[").getBytes(StandardCharsets.UTF_8);
        this.items = items;
        long size = head.length + END.length + Math.max(items.size() - 1, 0);
        for (byte[] item : items) {
            size += item.length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw StatusException.internalError("the list is too large to send in one response (" + size + " bytes); use limit and continue");
        }
        this.length = (int) size;
    }

    int length() {
        return length;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        out.write(head);
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.write(items.get(i));
        }
        out.write(END);
    }
}
