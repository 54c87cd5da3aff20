package io.k4j.api.apply;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a create, update or patch changed, as upstream's field manager compares the old and the new typed object:
 * the paths added or modified, and the paths removed. Upstream compares Go objects, so this compares the JSON as
 * Go would see it: null-valued fields are absent (Go drops them), the fields Go always serializes (non-pointer
 * structs, and lists without omitempty such as a pod's containers; see {@link #ALWAYS_PRESENT}) are present and
 * empty where the JSON lacks them, and {@code metadata.managedFields} is not part of the object.
 *
 * <p>Both objects are walked once as they are, rather than copied into that form and compared after: the paths are
 * built straight into the sets, and top-level fields the write cannot change are not walked at all. A create
 * compares against an empty object, whose always-present fields make a pod's {@code spec} and
 * {@code spec.containers} no additions of their own.
 *
 * <p>Not thread-safe (one instance per comparison, used by the thread that made it).
 */
final class UpdateComparison {
    /**
     * Fields Go always serializes, even in an empty object (non-pointer structs, and lists without omitempty such
     * as a pod's containers): upstream compares against such an object, so their appearing is no addition.
     */
    private static final Set<String> ALWAYS_PRESENT = Set.of("metadata", "spec", "status", "template", "jobTemplate", "strategy", "updateStrategy", "containers");
    private static final PathElement METADATA = new PathElement.Field("metadata");
    private static final String MANAGED_FIELDS = "managedFields";
    /** What an absent always-present struct or list stands for; never modified or handed out. */
    private static final JsonNode EMPTY_OBJECT = Json.object();
    private static final JsonNode EMPTY_ARRAY = Json.nodeFactory().arrayNode();

    private final FieldSet changed = new FieldSet();
    private final FieldSet removed = new FieldSet();
    private final Set<String> skippedTopLevelFields;

    private UpdateComparison(Set<String> skippedTopLevelFields) {
        this.skippedTopLevelFields = requireNonNull(skippedTopLevelFields, "skippedTopLevelFields is null");
    }

    /**
     * Compares two objects of a kind.
     *
     * @param live the object before the write, or null for a create
     * @param skippedTopLevelFields top-level fields to leave out (with everything below them) from both sets
     */
    static UpdateComparison compare(ObjectNode live, ObjectNode updated, Shape shape, Set<String> skippedTopLevelFields) {
        UpdateComparison comparison = new UpdateComparison(skippedTopLevelFields);
        boolean skeleton = shape instanceof Shape.Struct struct && !struct.atomic();
        comparison.compare(live == null ? EMPTY_OBJECT : live, updated, shape, skeleton, new Position(null, null, comparison));
        return comparison;
    }

    /** The paths added or given another value. */
    FieldSet changed() {
        return changed;
    }

    /** The paths removed. */
    FieldSet removed() {
        return removed;
    }

    /**
     * One position in the walk; its nodes in the two sets are only made once something is recorded at or below it,
     * as sets never hold empty nodes.
     */
    private static final class Position {
        private final Position parent;
        private final PathElement element;
        private final UpdateComparison comparison;
        private FieldSet changedNode;
        private FieldSet removedNode;

        Position(Position parent, PathElement element, UpdateComparison comparison) {
            this.parent = parent;
            this.element = element;
            this.comparison = comparison;
        }

        boolean isRoot() {
            return parent == null;
        }

        /** The node of the changed set holding the paths below this position. */
        FieldSet changedNode() {
            if (changedNode == null) {
                changedNode = parent == null ? comparison.changed : parent.changedNode().childFor(element);
            }
            return changedNode;
        }

        FieldSet removedNode() {
            if (removedNode == null) {
                removedNode = parent == null ? comparison.removed : parent.removedNode().childFor(element);
            }
            return removedNode;
        }
    }

    /**
     * Compares the values at one position (null where absent).
     *
     * @param skeleton whether Go would fill in the always-present fields of an object here
     */
    private void compare(JsonNode left, JsonNode right, Shape shape, boolean skeleton, Position at) {
        if (left == null) {
            if (right != null) {
                subtree(right, shape, at, true);
            }
            return;
        }
        if (right == null) {
            subtree(left, shape, at, false);
            return;
        }
        TypedValues.Kind leftKind = TypedValues.kind(shape, left);
        TypedValues.Kind rightKind = TypedValues.kind(shape, right);
        TypedValues.Kind kind = leftKind == rightKind ? leftKind : TypedValues.Kind.LEAF;
        if (kind == TypedValues.Kind.LEAF || isEmpty(left, shape, skeleton) && isEmpty(right, shape, skeleton)) {
            if (!at.isRoot() && !Values.equalWithoutNullFields(left, right)) {
                at.parent.changedNode().addMember(at.element);
            }
            return;
        }
        if (kind == TypedValues.Kind.MAP) {
            boolean skipManagedFields = at.parent != null && at.parent.isRoot() && at.element.equals(METADATA);
            for (Iterator<Map.Entry<String, JsonNode>> it = left.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                String name = entry.getKey();
                if (entry.getValue().isNull() || skipped(at, name, skipManagedFields)) {
                    continue;
                }
                TypedValues.Child child = TypedValues.child(shape, name);
                compare(entry.getValue(), effectiveField(right, name, child.shape(), skeleton), child.shape(), childSkeleton(skeleton, name, child.shape()),
                        new Position(at, new PathElement.Field(name), this));
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = right.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                String name = entry.getKey();
                JsonNode leftValue = left.get(name);
                if (entry.getValue().isNull() || leftValue != null && !leftValue.isNull() || skipped(at, name, skipManagedFields)) {
                    continue;
                }
                TypedValues.Child child = TypedValues.child(shape, name);
                compare(effectiveField(left, name, child.shape(), skeleton), entry.getValue(), child.shape(), childSkeleton(skeleton, name, child.shape()),
                        new Position(at, new PathElement.Field(name), this));
            }
            return;
        }
        Shape.ListOf list = (Shape.ListOf) shape;
        NavigableMap<PathElement, JsonNode> leftItems = index(list, left);
        NavigableMap<PathElement, JsonNode> rightItems = index(list, right);
        for (Map.Entry<PathElement, JsonNode> item : leftItems.entrySet()) {
            compare(item.getValue(), rightItems.get(item.getKey()), list.items(), false, new Position(at, item.getKey(), this));
        }
        for (Map.Entry<PathElement, JsonNode> item : rightItems.entrySet()) {
            if (!leftItems.containsKey(item.getKey())) {
                compare(null, item.getValue(), list.items(), false, new Position(at, item.getKey(), this));
            }
        }
    }

    private boolean skipped(Position at, String name, boolean skipManagedFields) {
        return at.isRoot() ? skippedTopLevelFields.contains(name) : skipManagedFields && name.equals(MANAGED_FIELDS);
    }

    /** A field's value as Go sees it: absent when null, empty when always present and missing. */
    private static JsonNode effectiveField(JsonNode object, String name, Shape shape, boolean skeleton) {
        JsonNode value = object.get(name);
        if (value != null && !value.isNull()) {
            return value;
        }
        if (skeleton && ALWAYS_PRESENT.contains(name)) {
            if (shape instanceof Shape.ListOf) {
                return EMPTY_ARRAY;
            }
            if (shape instanceof Shape.Struct) {
                return EMPTY_OBJECT;
            }
        }
        return null;
    }

    private static boolean childSkeleton(boolean skeleton, String name, Shape shape) {
        return skeleton && shape instanceof Shape.Struct struct && !struct.atomic() && ALWAYS_PRESENT.contains(name);
    }

    /** Whether the value as Go sees it is empty: no non-null fields and no always-present ones, or no items. */
    private static boolean isEmpty(JsonNode value, Shape shape, boolean skeleton) {
        if (!value.isObject()) {
            return value.isEmpty();
        }
        if (!hasNoNonNullField(value)) {
            return false;
        }
        if (skeleton && shape instanceof Shape.Struct struct) {
            for (String name : ALWAYS_PRESENT) {
                Optional<Shape> field = struct.field(name);
                if (field.isPresent() && (field.get() instanceof Shape.ListOf || field.get() instanceof Shape.Struct)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean hasNoNonNullField(JsonNode object) {
        for (JsonNode value : object) {
            if (!value.isNull()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Records a value added (or removed) as a whole: its own path and every path below it, node by node. Such a
     * value never has always-present fields filled in, as those are never absent on either side.
     */
    private static void subtree(JsonNode value, Shape shape, Position at, boolean added) {
        if (at.isRoot()) {
            children(value, shape, added ? at.changedNode() : at.removedNode());
            return;
        }
        subtree(value, shape, added ? at.parent.changedNode() : at.parent.removedNode(), at.element);
    }

    private static void subtree(JsonNode value, Shape shape, FieldSet parent, PathElement element) {
        parent.addMember(element);
        if (!isEmpty(value, shape, false) && TypedValues.kind(shape, value) != TypedValues.Kind.LEAF) {
            children(value, shape, parent.childFor(element));
        }
    }

    /** Records the paths below a value that is neither empty nor a leaf in its own node. */
    private static void children(JsonNode value, Shape shape, FieldSet node) {
        switch (TypedValues.kind(shape, value)) {
            case LEAF -> { }
            case MAP -> {
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = it.next();
                    if (!entry.getValue().isNull()) {
                        subtree(entry.getValue(), TypedValues.child(shape, entry.getKey()).shape(), node, new PathElement.Field(entry.getKey()));
                    }
                }
            }
            case LIST -> {
                Shape.ListOf list = (Shape.ListOf) shape;
                for (Map.Entry<PathElement, JsonNode> item : index(list, value).entrySet()) {
                    subtree(item.getValue(), list.items(), node, item.getKey());
                }
            }
        }
    }

    /**
     * A list's entries by element, a later entry replacing an earlier one with the same element. Elements are made
     * from the entries as Go sees them (null fields dropped), which only matters for entries identified by a value.
     */
    private static NavigableMap<PathElement, JsonNode> index(Shape.ListOf list, JsonNode array) {
        NavigableMap<PathElement, JsonNode> items = new TreeMap<>();
        for (int i = 0; i < array.size(); i++) {
            JsonNode item = array.get(i);
            items.put(TypedValues.element(list, identifying(list, item), i), item);
        }
        return items;
    }

    private static JsonNode identifying(Shape.ListOf list, JsonNode item) {
        boolean containers = switch (list.type()) {
            case SET -> item.isContainerNode();
            case MAP -> item.isObject() && anyContainerKey(list, item);
            case ATOMIC -> false;
        };
        return containers ? FieldManager.withoutNulls(item) : item;
    }

    private static boolean anyContainerKey(Shape.ListOf list, JsonNode item) {
        for (String key : list.keys()) {
            if (item.path(key).isContainerNode()) {
                return true;
            }
        }
        return false;
    }
}
