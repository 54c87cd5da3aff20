package io.k4j.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The walks of structured-merge-diff over JSON values with their {@link Shape}: the field set a value sets, the
 * comparison of two values, the merge of an applied configuration into a live object, and removing paths.
 * A Java {@code null} stands for an absent value. Thread-safe (stateless).
 */
final class TypedValues {
    private TypedValues() {}

    /** How a walk treats a value: as one leaf, or by descending into its fields or entries. */
    enum Kind { LEAF, MAP, LIST }

    record Child(Shape shape, boolean declared) {}

    static Kind kind(Shape shape, JsonNode value) {
        if (value == null || value.isNull()) {
            return Kind.LEAF;
        }
        return switch (shape) {
            case Shape.Scalar scalar -> Kind.LEAF;
            case Shape.Struct struct -> struct.atomic() || !value.isObject() ? Kind.LEAF : Kind.MAP;
            case Shape.MapOf map -> map.atomic() || !value.isObject() ? Kind.LEAF : Kind.MAP;
            case Shape.ListOf list -> list.type() == Shape.ListType.ATOMIC || !value.isArray() ? Kind.LEAF : Kind.LIST;
            case Shape.Deduced deduced -> value.isObject() ? Kind.MAP : Kind.LEAF;
        };
    }

    static Child child(Shape shape, String name) {
        return switch (shape) {
            case Shape.Struct struct -> struct.field(name).map(field -> new Child(field, true)).orElseGet(() -> new Child(new Shape.Deduced(), false));
            case Shape.MapOf map -> new Child(map.values(), false);
            case Shape.Scalar scalar -> new Child(new Shape.Deduced(), false);
            case Shape.ListOf list -> new Child(new Shape.Deduced(), false);
            case Shape.Deduced deduced -> new Child(new Shape.Deduced(), false);
        };
    }

    /** The shape below one path element. */
    static Shape childShape(Shape shape, PathElement element) {
        return switch (element) {
            case PathElement.Field field -> child(shape, field.name()).shape();
            case PathElement.Key key -> items(shape);
            case PathElement.Value value -> items(shape);
            case PathElement.Index index -> items(shape);
        };
    }

    private static Shape items(Shape shape) {
        return shape instanceof Shape.ListOf list ? list.items() : new Shape.Deduced();
    }

    /** The element identifying a list entry; entries without their keys fall back to their position. */
    static PathElement element(Shape.ListOf list, JsonNode item, int index) {
        return switch (list.type()) {
            case SET -> new PathElement.Value(item);
            case MAP -> {
                List<PathElement.KeyField> fields = keyFields(list, item);
                yield fields.isEmpty() ? new PathElement.Index(index) : new PathElement.Key(fields);
            }
            case ATOMIC -> new PathElement.Index(index);
        };
    }

    private static List<PathElement.KeyField> keyFields(Shape.ListOf list, JsonNode item) {
        List<PathElement.KeyField> fields = new ArrayList<>(list.keys().size());
        if (!item.isObject()) {
            return fields;
        }
        for (String key : list.keys()) {
            JsonNode value = item.get(key);
            if (value == null || value.isNull()) {
                value = list.keyDefaults().get(key);
            }
            if (value != null) {
                fields.add(new PathElement.KeyField(key, value));
            }
        }
        fields.sort((left, right) -> left.name().compareTo(right.name()));
        return fields;
    }

    private static List<PathElement> append(List<PathElement> path, PathElement element) {
        List<PathElement> result = new ArrayList<>(path.size() + 1);
        result.addAll(path);
        result.add(element);
        return result;
    }

    private static Iterable<Map.Entry<String, JsonNode>> entries(JsonNode object) {
        return object::fields;
    }

    // ---- field set -------------------------------------------------------------------------------------

    /** The paths a value sets: its leaves, list entries, map entries, and empty or null fields. */
    static FieldSet toFieldSet(JsonNode value, Shape shape) {
        FieldSet set = new FieldSet();
        toFieldSet(value, shape, List.of(), set);
        return set;
    }

    private static void toFieldSet(JsonNode value, Shape shape, List<PathElement> path, FieldSet set) {
        switch (kind(shape, value)) {
            case LEAF -> set.insert(path);
            case MAP -> {
                for (Map.Entry<String, JsonNode> entry : entries(value)) {
                    Child child = child(shape, entry.getKey());
                    List<PathElement> childPath = append(path, new PathElement.Field(entry.getKey()));
                    JsonNode childValue = entry.getValue();
                    toFieldSet(childValue, child.shape(), childPath, set);
                    if (childValue.isNull() || childValue.isObject() && childValue.isEmpty() || !child.declared()) {
                        set.insert(childPath);
                    }
                }
            }
            case LIST -> {
                Shape.ListOf list = (Shape.ListOf) shape;
                for (int i = 0; i < value.size(); i++) {
                    JsonNode item = value.get(i);
                    List<PathElement> itemPath = append(path, element(list, item, i));
                    toFieldSet(item, list.items(), itemPath, set);
                    set.insert(itemPath);
                }
            }
        }
    }

    // ---- comparison ------------------------------------------------------------------------------------

    /** What changed from one value to another: paths added, modified (leaves with another value) and removed. */
    record Comparison(FieldSet added, FieldSet modified, FieldSet removed) {
        boolean isSame() {
            return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
        }
    }

    static Comparison compare(JsonNode left, JsonNode right, Shape shape) {
        Comparison comparison = new Comparison(new FieldSet(), new FieldSet(), new FieldSet());
        compare(left, right, shape, List.of(), comparison);
        return comparison;
    }

    private static void compare(JsonNode left, JsonNode right, Shape shape, List<PathElement> path, Comparison comparison) {
        if (left == null && right != null) {
            // Everything in an added value is added: built node by node instead of path by path from the root,
            // which is most of a create's comparison against an empty object.
            if (path.isEmpty()) {
                addChildren(right, shape, comparison.added());
            } else {
                addSubtree(right, shape, comparison.added().nodeFor(path.subList(0, path.size() - 1)), path.get(path.size() - 1));
            }
            return;
        }
        Kind leftKind = left == null ? null : kind(shape, left);
        Kind rightKind = right == null ? null : kind(shape, right);
        Kind kind = leftKind == null ? rightKind : rightKind == null ? leftKind : leftKind == rightKind ? leftKind : Kind.LEAF;
        boolean bothEmpty = (left == null || left.isEmpty()) && (right == null || right.isEmpty());
        if (kind == Kind.LEAF || bothEmpty) {
            if (left == null) {
                comparison.added().insert(path);
            } else if (right == null) {
                comparison.removed().insert(path);
            } else if (!Values.equal(left, right)) {
                comparison.modified().insert(path);
            }
            return;
        }
        if (kind == Kind.MAP) {
            if (left != null) {
                for (Map.Entry<String, JsonNode> entry : entries(left)) {
                    String name = entry.getKey();
                    compare(entry.getValue(), right == null ? null : right.get(name), child(shape, name).shape(),
                            append(path, new PathElement.Field(name)), comparison);
                }
            }
            if (right != null) {
                for (Map.Entry<String, JsonNode> entry : entries(right)) {
                    String name = entry.getKey();
                    if (left == null || !left.has(name)) {
                        compare(null, entry.getValue(), child(shape, name).shape(), append(path, new PathElement.Field(name)), comparison);
                    }
                }
            }
        } else {
            Shape.ListOf list = (Shape.ListOf) shape;
            NavigableMap<PathElement, JsonNode> leftItems = index(list, left);
            NavigableMap<PathElement, JsonNode> rightItems = index(list, right);
            Set<PathElement> elements = new TreeSet<>(leftItems.keySet());
            elements.addAll(rightItems.keySet());
            for (PathElement element : elements) {
                compare(leftItems.get(element), rightItems.get(element), list.items(), append(path, element), comparison);
            }
        }
        if (left == null) {
            comparison.added().insert(path);
        } else if (right == null) {
            comparison.removed().insert(path);
        }
    }

    /** Adds the element of an added value, and every path below it, to the set node holding the element. */
    private static void addSubtree(JsonNode value, Shape shape, FieldSet parent, PathElement element) {
        parent.addMember(element);
        if (!value.isEmpty() && kind(shape, value) != Kind.LEAF) {
            addChildren(value, shape, parent.childFor(element));
        }
    }

    /** Adds the paths below an added value (none for an empty one or a leaf) to its own set node. */
    private static void addChildren(JsonNode value, Shape shape, FieldSet node) {
        if (value.isEmpty()) {
            return;
        }
        switch (kind(shape, value)) {
            case LEAF -> { }
            case MAP -> {
                for (Map.Entry<String, JsonNode> entry : entries(value)) {
                    addSubtree(entry.getValue(), child(shape, entry.getKey()).shape(), node, new PathElement.Field(entry.getKey()));
                }
            }
            case LIST -> {
                Shape.ListOf list = (Shape.ListOf) shape;
                for (Map.Entry<PathElement, JsonNode> item : index(list, value).entrySet()) {
                    addSubtree(item.getValue(), list.items(), node, item.getKey());
                }
            }
        }
    }

    private static NavigableMap<PathElement, JsonNode> index(Shape.ListOf list, JsonNode array) {
        NavigableMap<PathElement, JsonNode> items = new TreeMap<>();
        if (array != null) {
            for (int i = 0; i < array.size(); i++) {
                items.put(element(list, array.get(i), i), array.get(i));
            }
        }
        return items;
    }

    // ---- merge -----------------------------------------------------------------------------------------

    /**
     * Merges an applied configuration into a live value: the configuration's leaves and atomic values win, maps
     * merge field by field, and associative and set lists merge entry by entry in the configuration's order, with
     * live entries it does not mention kept before the configured entries they preceded.
     */
    static JsonNode merge(JsonNode live, JsonNode config, Shape shape) {
        if (config == null) {
            return live == null ? null : live.deepCopy();
        }
        if (live == null) {
            return config.deepCopy();
        }
        Kind liveKind = kind(shape, live);
        Kind configKind = kind(shape, config);
        if (liveKind != configKind || configKind == Kind.LEAF) {
            return config.deepCopy();
        }
        if (configKind == Kind.MAP) {
            ObjectNode merged = Json.object();
            for (Map.Entry<String, JsonNode> entry : entries(live)) {
                merged.set(entry.getKey(), merge(entry.getValue(), config.get(entry.getKey()), child(shape, entry.getKey()).shape()));
            }
            for (Map.Entry<String, JsonNode> entry : entries(config)) {
                if (!live.has(entry.getKey())) {
                    merged.set(entry.getKey(), entry.getValue().deepCopy());
                }
            }
            return merged;
        }
        Shape.ListOf list = (Shape.ListOf) shape;
        NavigableMap<PathElement, JsonNode> liveItems = index(list, live);
        NavigableMap<PathElement, JsonNode> configItems = index(list, config);
        List<PathElement> configOrder = new ArrayList<>(configItems.size());
        for (int i = 0; i < config.size(); i++) {
            configOrder.add(element(list, config.get(i), i));
        }
        ArrayNode merged = Json.nodeFactory().arrayNode();
        Set<PathElement> emitted = new TreeSet<>();
        int next = 0;
        for (int i = 0; i < live.size(); i++) {
            PathElement element = element(list, live.get(i), i);
            if (!configItems.containsKey(element)) {
                if (emitted.add(element)) {
                    merged.add(live.get(i).deepCopy());
                }
                continue;
            }
            while (!emitted.contains(element) && next < configOrder.size()) {
                PathElement configured = configOrder.get(next++);
                if (emitted.add(configured)) {
                    merged.add(merge(liveItems.get(configured), configItems.get(configured), list.items()));
                }
            }
        }
        while (next < configOrder.size()) {
            PathElement configured = configOrder.get(next++);
            if (emitted.add(configured)) {
                merged.add(merge(liveItems.get(configured), configItems.get(configured), list.items()));
            }
        }
        return merged;
    }

    // ---- removal ---------------------------------------------------------------------------------------

    /** A copy of the value without the set's member paths (each with everything below it). */
    static JsonNode removeItems(JsonNode value, FieldSet set, Shape shape) {
        if (value == null) {
            return null;
        }
        switch (kind(shape, value)) {
            case LEAF -> {
                return value.deepCopy();
            }
            case MAP -> {
                ObjectNode result = Json.object();
                for (Map.Entry<String, JsonNode> entry : entries(value)) {
                    PathElement element = new PathElement.Field(entry.getKey());
                    if (set.members().contains(element)) {
                        continue;
                    }
                    FieldSet below = set.child(element);
                    Shape childShape = child(shape, entry.getKey()).shape();
                    result.set(entry.getKey(), below == null ? entry.getValue().deepCopy() : removeItems(entry.getValue(), below, childShape));
                }
                return result;
            }
            case LIST -> {
                Shape.ListOf list = (Shape.ListOf) shape;
                ArrayNode result = Json.nodeFactory().arrayNode();
                for (int i = 0; i < value.size(); i++) {
                    JsonNode item = value.get(i);
                    PathElement element = element(list, item, i);
                    if (set.members().contains(element)) {
                        continue;
                    }
                    FieldSet below = set.child(element);
                    result.add(below == null ? item.deepCopy() : removeItems(item, below, list.items()));
                }
                return result;
            }
        }
        throw new AssertionError();
    }

    /**
     * The set with every declared struct field that has paths below it made a member too, so that removing the
     * set removes such a field once nothing below it is kept.
     */
    static FieldSet ensureNamedFieldsAreMembers(FieldSet set, Shape shape) {
        FieldSet result = new FieldSet();
        result.members().addAll(set.members());
        for (Map.Entry<PathElement, FieldSet> child : set.children().entrySet()) {
            PathElement element = child.getKey();
            if (element instanceof PathElement.Field field && shape instanceof Shape.Struct struct && struct.field(field.name()).isPresent()) {
                result.members().add(element);
            }
            result.putChildUnlessEmpty(element, ensureNamedFieldsAreMembers(child.getValue(), childShape(shape, element)));
        }
        return result;
    }

    // ---- validation ------------------------------------------------------------------------------------

    /**
     * Upstream's errors for an applied configuration that does not fit the schema: undeclared fields, entries of
     * associative lists without their keys, and duplicated entries; each as {@code <path>: <problem>}.
     */
    static List<String> validate(JsonNode value, Shape shape) {
        List<String> errors = new ArrayList<>();
        validate(value, shape, List.of(), errors);
        return errors;
    }

    private static void validate(JsonNode value, Shape shape, List<PathElement> path, List<String> errors) {
        switch (kind(shape, value)) {
            case LEAF -> { }
            case MAP -> {
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> entry = it.next();
                    List<PathElement> childPath = append(path, new PathElement.Field(entry.getKey()));
                    if (shape instanceof Shape.Struct struct && struct.field(entry.getKey()).isEmpty()) {
                        errors.add(FieldSet.display(childPath) + ": field not declared in schema");
                        continue;
                    }
                    validate(entry.getValue(), child(shape, entry.getKey()).shape(), childPath, errors);
                }
            }
            case LIST -> {
                Shape.ListOf list = (Shape.ListOf) shape;
                Set<PathElement> seen = new TreeSet<>();
                for (int i = 0; i < value.size(); i++) {
                    JsonNode item = value.get(i);
                    if (list.type() == Shape.ListType.MAP) {
                        String missing = missingKey(list, item);
                        if (missing != null) {
                            errors.add(FieldSet.display(path) + ": element " + i + ": associative list with keys has an element that omits key field \"" + missing + "\"");
                            continue;
                        }
                    }
                    PathElement element = element(list, item, i);
                    if (!seen.add(element)) {
                        errors.add(FieldSet.display(path) + ": duplicate entries for key " + element.display());
                        continue;
                    }
                    validate(item, list.items(), append(path, element), errors);
                }
            }
        }
    }

    private static String missingKey(Shape.ListOf list, JsonNode item) {
        for (String key : list.keys()) {
            JsonNode value = item.get(key);
            if ((value == null || value.isNull()) && !list.keyDefaults().containsKey(key)) {
                return key;
            }
        }
        return null;
    }
}
