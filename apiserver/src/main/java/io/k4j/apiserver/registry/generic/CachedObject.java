package io.k4j.apiserver.registry.generic;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import io.k4j.api.codec.StringTable;
import java.lang.ref.SoftReference;
import java.util.Map;

/**
 * One object as the watch cache holds it: serialised once, in the served form with its {@code resourceVersion}
 * set, so that LIST and WATCH write the bytes without encoding again; plus what selectors match on.
 * Immutable apart from a memo of the parsed object; thread-safe. {@link #json()} must not be modified.
 *
 * <p>The namespace and the values of labels and selectable fields are shared instances ({@link StringTable}).
 *
 * <p>A class rather than a record only for that memo: in-process readers (admission reads a pod's namespace,
 * service account and priority classes on every pod create) would otherwise parse the same bytes each time.
 */
public final class CachedObject {
    /** Shared by all caches: a namespace, a label's value, a pod's phase or node are the same string for many objects. */
    private static final StringTable STRINGS = new StringTable(8192);

    private final String key;
    private final String namespace;
    private final String name;
    private final long revision;
    private final byte[] json;
    private final Map<String, String> labels;
    private final Map<String, String> fields;
    /**
     * The parsed object, handed out itself only to readers that promise not to modify it (others get copies); soft
     * so that rarely read objects do not keep it.
     */
    private volatile SoftReference<ObjectNode> parsed;

    /**
     * @param key the storage key
     * @param namespace the namespace, empty for cluster-scoped objects
     * @param name the name
     * @param revision the storage mod revision (the object's resourceVersion)
     * @param json the object as JSON
     * @param labels {@code metadata.labels}
     * @param fields the values field selectors match, including {@code metadata.name} and {@code metadata.namespace}
     */
    public CachedObject(String key, String namespace, String name, long revision, byte[] json, Map<String, String> labels, Map<String, String> fields) {
        this.key = requireNonNull(key, "key is null");
        this.namespace = STRINGS.canonical(requireNonNull(namespace, "namespace is null"));
        this.name = requireNonNull(name, "name is null");
        this.revision = revision;
        this.json = requireNonNull(json, "json is null");
        this.labels = canonicalValues(requireNonNull(labels, "labels is null"));
        this.fields = canonicalValues(requireNonNull(fields, "fields is null"));
    }

    /** A copy whose values are the table's instances: most values of labels and selectable fields repeat across objects. */
    private static Map<String, String> canonicalValues(Map<String, String> map) {
        if (map.isEmpty()) {
            return Map.of();
        }
        @SuppressWarnings("unchecked")
        Map.Entry<String, String>[] entries = new Map.Entry[map.size()];
        int i = 0;
        for (Map.Entry<String, String> entry : map.entrySet()) {
            entries[i++] = Map.entry(entry.getKey(), STRINGS.canonical(entry.getValue()));
        }
        return Map.ofEntries(entries);
    }

    public String key() {
        return key;
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    public long revision() {
        return revision;
    }

    public byte[] json() {
        return json;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public Map<String, String> fields() {
        return fields;
    }

    /** A fresh tree of the object the caller may modify. */
    public ObjectNode toObjectNode() {
        return (ObjectNode) Json.readWithoutNameTable(json);
    }

    /**
     * A fresh tree of the object the caller may modify, copied from a parse kept for the next reader: for objects
     * read again and again in-process. Copying a tree costs a fraction of parsing it.
     */
    ObjectNode copyOfParsed() {
        return sharedParsed().deepCopy();
    }

    /** The kept parse itself, for in-process readers that do not modify it. */
    ObjectNode sharedParsed() {
        SoftReference<ObjectNode> reference = parsed;
        ObjectNode tree = reference == null ? null : reference.get();
        if (tree == null) {
            tree = toObjectNode();
            parsed = new SoftReference<>(tree);
        }
        return tree;
    }

    @Override
    public String toString() {
        return "CachedObject[" + key + "@" + revision + "]";
    }
}
