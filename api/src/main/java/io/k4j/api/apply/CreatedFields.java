package io.k4j.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The field sets of recent creates, for creates of the same object again: a ReplicaSet's pods from one template, a
 * client's one body with {@code generateName}. Such a create takes the set found before instead of comparing the
 * object with an empty one and encoding the set once more, which is most of what recording a create costs.
 *
 * <p>Two creates have the same set when their objects are equal apart from the values of the identity fields in
 * {@code metadata} (name, uid, creationTimestamp...): the set holds no path below those, as no manager owns them.
 * Their presence and JSON type still count, being paths the comparison visits.
 *
 * <p>A direct-mapped table: each object has one slot, chosen by a hash of what counts. A slot first holds the hash
 * alone, and the object (a copy) with its set only once the same hash comes again, so that objects created once
 * (events, uniquely named objects) cost a hash and no copy. Thread-safe: slots are immutable and their objects and
 * sets never change once published.
 */
final class CreatedFields {
    /** Metadata fields whose values may differ between creates of one object, and that no manager owns. */
    private static final Set<String> IDENTITY = FieldManager.STRIPPED_METADATA_FIELDS;
    private static final String METADATA = "metadata";
    /**
     * Larger objects are not remembered, so that a table stays small: a pod is a few KB, and large objects (ConfigMaps,
     * Secrets) are seldom created twice alike.
     */
    private static final int MAX_REMEMBERED_SIZE = 16 * 1024;

    private record Slot(int hash, FieldManager.Target target, String manager, ObjectNode object, FieldSet fields) {}

    private final AtomicReferenceArray<Slot> slots;

    /** @param slots the objects remembered at most, a power of two */
    CreatedFields(int slots) {
        if (slots <= 0 || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, not " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
    }

    /** The hash of what counts in an object to be created, for {@link #find} and {@link #remember}. */
    static int hash(ObjectNode object) {
        return hash(object, false);
    }

    /** A sum of the fields' hashes, as JsonNode's own hash of an object, so that their order does not count. */
    private static int hash(JsonNode object, boolean metadata) {
        int hash = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode value = field.getValue();
            hash += field.getKey().hashCode() ^ (metadata && IDENTITY.contains(field.getKey()) ? value.getNodeType().ordinal()
                    : !metadata && field.getKey().equals(METADATA) && value.isObject() ? hash(value, true)
                    : value.hashCode());
        }
        return hash;
    }

    /** The set recorded for an object that counts as {@code object}, created through {@code target} by {@code manager}; or null. */
    FieldSet find(int hash, ObjectNode object, FieldManager.Target target, String manager) {
        Slot slot = slots.get(index(hash));
        if (slot == null || slot.hash() != hash || slot.object() == null || !slot.target().equals(target) || !slot.manager().equals(manager)
                || !sameApartFromIdentity(slot.object(), object, false)) {
            return null;
        }
        return slot.fields();
    }

    /**
     * Notes the set compared for an object; the object is copied (and {@code fields} with it) only when its hash was
     * noted before and it is small. Neither argument is kept.
     */
    void remember(int hash, ObjectNode object, FieldManager.Target target, String manager, FieldSet fields) {
        int index = index(hash);
        Slot slot = slots.get(index);
        if (slot == null || slot.hash() != hash || !slot.target().equals(target) || !slot.manager().equals(manager)) {
            slots.set(index, new Slot(hash, target, manager, null, null));
            return;
        }
        if (sizeWithin(object, MAX_REMEMBERED_SIZE) < 0) {
            return;
        }
        // Decoded from its own encoding, the set's encoding is a copy of that (see FieldSet#toFieldsV1).
        slots.set(index, new Slot(hash, target, manager, object.deepCopy(), FieldSet.fromFieldsV1(fields.toFieldsV1())));
    }

    /** What is left of {@code budget} after a rough size of the value (its text and names, 8 per node); negative beyond it. */
    private static int sizeWithin(JsonNode value, int budget) {
        budget -= 8;
        if (value.isTextual()) {
            return budget - value.textValue().length();
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext() && budget >= 0; ) {
            Map.Entry<String, JsonNode> field = it.next();
            budget = sizeWithin(field.getValue(), budget - field.getKey().length());
        }
        if (value.isArray()) {
            for (int i = 0; i < value.size() && budget >= 0; i++) {
                budget = sizeWithin(value.get(i), budget);
            }
        }
        return budget;
    }

    private int index(int hash) {
        return (hash ^ (hash >>> 16)) & (slots.length() - 1);
    }

    /** Whether two objects have the same fields and values, the identity fields of their metadata by JSON type only. */
    private static boolean sameApartFromIdentity(JsonNode known, JsonNode object, boolean metadata) {
        if (known.size() != object.size()) {
            return false;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = known.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode value = field.getValue();
            JsonNode other = object.get(field.getKey());
            boolean same = other != null && (metadata && IDENTITY.contains(field.getKey()) ? value.getNodeType() == other.getNodeType()
                    : !metadata && field.getKey().equals(METADATA) && value.isObject() && other.isObject() ? sameApartFromIdentity(value, other, true)
                    : value.equals(other));
            if (!same) {
                return false;
            }
        }
        return true;
    }
}
