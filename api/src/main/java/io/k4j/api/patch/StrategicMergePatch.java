package io.k4j.api.patch;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.api.resource.GroupVersionKind;
import io.k4j.api.schema.Definition;
import io.k4j.api.schema.DefinitionKind;
import io.k4j.api.schema.Field;
import io.k4j.api.schema.FieldMetadata;
import io.k4j.api.schema.Schema;
import io.k4j.api.schema.Schemas;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a strategic merge patch ({@code application/strategic-merge-patch+json}) to an object, with the
 * semantics of upstream's {@code strategicpatch.StrategicMergePatch}: maps merge recursively and {@code null}
 * deletes a key; a list whose field declares {@code patchStrategy=merge} merges by its merge key (lists of
 * objects) or as a set union (lists of scalars); every other list is replaced. Directives:
 * {@code $patch: replace|delete} in a map or list element, {@code $retainKeys},
 * {@code $setElementOrder/<field>} and {@code $deleteFromPrimitiveList/<field>}.
 *
 * <p>Fields the schema does not know merge like maps and replace like plain lists (upstream fails the request
 * with an internal error there); whether such fields are allowed at all is decided by field validation.
 *
 * <p>Errors are {@link StatusException}s with upstream's codes: a malformed directive is 400 BadRequest, a list
 * of lists 422 Invalid, and the errors upstream does not classify (a missing merge key, an unknown
 * {@code $patch} value, mismatched list elements) 500 InternalError. Inputs are never modified.
 *
 * <p>Stateless and thread-safe.
 */
public final class StrategicMergePatch {
    private static final String DIRECTIVE = "$patch";
    private static final String REPLACE = "replace";
    private static final String DELETE = "delete";
    private static final String MERGE = "merge";
    private static final String RETAIN_KEYS = "$retainKeys";
    private static final String SET_ELEMENT_ORDER = "$setElementOrder/";
    private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";

    private final Schemas schemas;

    public StrategicMergePatch(Schemas schemas) {
        this.schemas = requireNonNull(schemas, "schemas is null");
    }

    /** Over {@link Schemas#builtin()}. */
    public static StrategicMergePatch builtin() {
        return new StrategicMergePatch(Schemas.builtin());
    }

    /**
     * Applies {@code patch} to an object of {@code kind}.
     *
     * @throws IllegalArgumentException when the kind has no schema (upstream refuses strategic merge patches for such kinds)
     * @throws StatusException when the patch cannot be applied
     */
    public ObjectNode apply(GroupVersionKind kind, ObjectNode original, JsonNode patch) {
        Definition definition = schemas.forKind(kind)
                .orElseThrow(() -> new IllegalArgumentException("no schema for " + kind + ": strategic merge patch is not supported"));
        return apply(definition, original, patch);
    }

    /** Applies {@code patch} to a value of the given definition. */
    public ObjectNode apply(Definition definition, ObjectNode original, JsonNode patch) {
        requireNonNull(definition, "definition is null");
        requireNonNull(original, "original is null");
        if (patch == null || !patch.isObject()) {
            throw badRequest("invalid JSON document");
        }
        return mergeMap(original.deepCopy(), ((ObjectNode) patch).deepCopy(), new Schema.Reference(definition.name()));
    }

    private ObjectNode mergeMap(ObjectNode original, ObjectNode patch, Schema schema) {
        JsonNode directive = patch.get(DIRECTIVE);
        if (directive != null) {
            if (directive.isTextual() && directive.asText().equals(REPLACE)) {
                patch.remove(DIRECTIVE);
                return (ObjectNode) stripDirectives(patch, schema);
            }
            if (directive.isTextual() && directive.asText().equals(DELETE)) {
                return JsonNodeFactory.instance.objectNode();
            }
            throw internalError("unknown patch type: " + directive.asText() + " in map: " + patch);
        }
        applyRetainKeys(original, patch);
        applySetElementOrders(original, patch, schema);

        for (String key : fieldNames(patch)) {
            JsonNode patchValue = patch.get(key);
            boolean deleteList = false;
            String field = key;
            if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
                field = key.substring(DELETE_FROM_PRIMITIVE_LIST.length());
                deleteList = true;
                if (!patchValue.isArray()) {
                    throw badRequest("invalid patch format of primitive list");
                }
            }
            if (patchValue.isNull()) {
                original.remove(field);
                continue;
            }
            JsonNode originalValue = original.get(field);
            if (originalValue == null || originalValue.isNull() || originalValue.getNodeType() != patchValue.getNodeType()) {
                if (!deleteList) {
                    original.set(field, stripDirectives(patchValue, child(schema, field)));
                }
                continue;
            }
            Schema fieldSchema = child(schema, field);
            FieldMetadata metadata = metadata(schema, field);
            String strategy = patchStrategy(metadata);
            if (patchValue.isObject()) {
                original.set(field, strategy.equals(REPLACE)
                        ? stripDirectives(patchValue, fieldSchema)
                        : mergeMap((ObjectNode) originalValue, (ObjectNode) patchValue, fieldSchema));
            } else if (patchValue.isArray()) {
                original.set(field, mergeListHandler((ArrayNode) originalValue, (ArrayNode) patchValue, items(fieldSchema), strategy,
                        metadata.patchMergeKey().orElse(""), deleteList));
            } else {
                original.set(field, patchValue);
            }
        }
        return original;
    }

    private ArrayNode mergeListHandler(ArrayNode original, ArrayNode patch, Schema itemSchema, String strategy, String mergeKey, boolean deleteList) {
        if (strategy.equals(MERGE)) {
            return mergeList(original, patch, itemSchema, mergeKey, deleteList);
        }
        // upstream deletes from any list, whatever its strategy (fixed in 1.25: it used to replace the list)
        if (deleteList) {
            return deleteFromList(original, patch);
        }
        return (ArrayNode) stripDirectives(patch, new Schema.ArrayOf(itemSchema == null ? new Schema.Untyped() : itemSchema));
    }

    private ArrayNode mergeList(ArrayNode original, ArrayNode patch, Schema itemSchema, String mergeKey, boolean deleteList) {
        if (original.isEmpty() && patch.isEmpty()) {
            return original;
        }
        boolean objects = elementsAreObjects(original, patch);
        List<JsonNode> merged;
        if (!objects) {
            if (deleteList) {
                return deleteFromList(original, patch);
            }
            merged = new ArrayList<>();
            for (JsonNode element : concat(original, patch)) {
                if (merged.stream().noneMatch(existing -> sameValue(existing, element))) {
                    merged.add(element);
                }
            }
        } else {
            if (mergeKey.isEmpty()) {
                throw internalError("cannot merge lists without merge key for " + describe(itemSchema));
            }
            List<JsonNode> remainingOriginal = new ArrayList<>();
            original.forEach(remainingOriginal::add);
            List<JsonNode> patchElements = new ArrayList<>();
            boolean replace = false;
            for (JsonNode element : patch) {
                JsonNode directive = element.get(DIRECTIVE);
                if (directive == null) {
                    patchElements.add(element);
                    continue;
                }
                switch (directive.asText()) {
                    case DELETE -> {
                        JsonNode value = element.get(mergeKey);
                        if (value == null) {
                            throw noMergeKey(element, mergeKey);
                        }
                        remainingOriginal.removeIf(existing -> sameValue(existing.get(mergeKey), value));
                    }
                    case REPLACE -> replace = true;
                    case MERGE -> throw internalError("merging lists cannot yet be specified in the patch");
                    default -> throw internalError("unknown patch type: " + directive.asText() + " in map: " + element);
                }
            }
            if (replace) {
                ArrayNode replaced = JsonNodeFactory.instance.arrayNode();
                patchElements.forEach(element -> replaced.add(stripDirectives(element, itemSchema)));
                return replaced;
            }
            merged = remainingOriginal;
            for (JsonNode element : patchElements) {
                JsonNode value = element.get(mergeKey);
                if (value == null) {
                    throw noMergeKey(element, mergeKey);
                }
                int index = indexOf(merged, mergeKey, value);
                if (index >= 0) {
                    merged.set(index, mergeMap((ObjectNode) merged.get(index).deepCopy(), (ObjectNode) element, itemSchema));
                } else {
                    merged.add(stripDirectives(element, itemSchema));
                }
            }
        }
        List<JsonNode> patchOrder = new ArrayList<>();
        patch.forEach(element -> {
            if (!element.has(DIRECTIVE)) {
                patchOrder.add(element);
            }
        });
        List<JsonNode> serverOrder = new ArrayList<>();
        original.forEach(serverOrder::add);
        return order(merged, patchOrder, serverOrder, objects ? mergeKey : "");
    }

    /**
     * Orders a merged list as upstream does: elements named in {@code order} (the patch list or a
     * {@code $setElementOrder}) in that order, the others in their server order, interleaved so that server
     * elements keep their place relative to the named ones.
     */
    private static ArrayNode order(List<JsonNode> merged, List<JsonNode> order, List<JsonNode> serverOrder, String mergeKey) {
        List<JsonNode> named = new ArrayList<>();
        List<JsonNode> serverOnly = new ArrayList<>();
        for (JsonNode element : merged) {
            (position(order, element, mergeKey) >= 0 ? named : serverOnly).add(element);
        }
        named.sort((left, right) -> Integer.compare(position(order, left, mergeKey), position(order, right, mergeKey)));
        serverOnly.sort((left, right) -> Integer.compare(position(serverOrder, left, mergeKey), position(serverOrder, right, mergeKey)));
        ArrayNode result = JsonNodeFactory.instance.arrayNode();
        int left = 0;
        int right = 0;
        while (left < serverOnly.size() || right < named.size()) {
            if (left >= serverOnly.size()) {
                result.add(named.get(right++));
            } else if (right >= named.size()) {
                result.add(serverOnly.get(left++));
            } else {
                int serverIndex = position(serverOrder, serverOnly.get(left), mergeKey);
                int namedIndex = position(serverOrder, named.get(right), mergeKey);
                if (serverIndex >= 0 && namedIndex >= 0 && serverIndex < namedIndex) {
                    result.add(serverOnly.get(left++));
                } else {
                    result.add(named.get(right++));
                }
            }
        }
        return result;
    }

    private static int position(List<JsonNode> list, JsonNode element, String mergeKey) {
        for (int i = 0; i < list.size(); i++) {
            JsonNode candidate = list.get(i);
            if (mergeKey.isEmpty() ? sameValue(candidate, element) : sameValue(candidate.get(mergeKey), element.get(mergeKey))) {
                return i;
            }
        }
        return -1;
    }

    private void applyRetainKeys(ObjectNode original, ObjectNode patch) {
        JsonNode retainKeys = patch.remove(RETAIN_KEYS);
        if (retainKeys == null) {
            return;
        }
        if (!retainKeys.isArray()) {
            throw badRequest("invalid patch format of retainKeys");
        }
        Set<String> retained = new HashSet<>();
        retainKeys.forEach(key -> retained.add(key.asText()));
        for (String key : fieldNames(patch)) {
            JsonNode value = patch.get(key);
            if (value.isNull() || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER) || key.equals(DIRECTIVE)) {
                continue;
            }
            if (!retained.contains(key)) {
                throw badRequest("invalid patch format of retainKeys");
            }
        }
        for (String key : fieldNames(original)) {
            if (!retained.contains(key)) {
                original.remove(key);
            }
        }
    }

    private void applySetElementOrders(ObjectNode original, ObjectNode patch, Schema schema) {
        for (String key : fieldNames(patch)) {
            if (!key.startsWith(SET_ELEMENT_ORDER)) {
                continue;
            }
            JsonNode order = patch.remove(key);
            String field = key.substring(SET_ELEMENT_ORDER.length());
            if (!order.isArray()) {
                throw badRequest("invalid patch format of setElementOrder list");
            }
            JsonNode originalValue = original.get(field);
            JsonNode patchValue = patch.get(field);
            if (originalValue != null && !originalValue.isArray() && !originalValue.isNull()
                    || patchValue != null && !patchValue.isArray() && !patchValue.isNull()) {
                throw internalError("expected a list at " + field);
            }
            ArrayNode originalList = originalValue != null && originalValue.isArray() ? (ArrayNode) originalValue : JsonNodeFactory.instance.arrayNode();
            ArrayNode patchList = patchValue != null && patchValue.isArray() ? (ArrayNode) patchValue : null;
            FieldMetadata metadata = metadata(schema, field);
            String mergeKey = metadata.patchMergeKey().orElse("");
            List<JsonNode> orderList = new ArrayList<>();
            order.forEach(orderList::add);
            if (patchList != null) {
                validateAgainstOrder(patchList, orderList, mergeKey);
            }
            if (originalList.isEmpty() && (patchList == null || patchList.isEmpty())) {
                patch.remove(field);
                continue;
            }
            ArrayNode merged = patchList == null
                    ? originalList
                    : mergeListHandler(originalList, patchList, items(child(schema, field)), patchStrategy(metadata), mergeKey, false);
            List<JsonNode> mergedElements = new ArrayList<>();
            merged.forEach(mergedElements::add);
            List<JsonNode> serverOrder = new ArrayList<>();
            originalList.forEach(serverOrder::add);
            boolean objects = elementsAreObjects(originalList, patchList == null ? JsonNodeFactory.instance.arrayNode() : patchList);
            original.set(field, order(mergedElements, orderList, serverOrder, objects ? mergeKey : ""));
            patch.remove(field);
        }
    }

    /**
     * Every element of the patch list must appear in {@code $setElementOrder}, in the same relative order;
     * upstream does not classify a mismatch, so it is an internal error there and here.
     */
    private static void validateAgainstOrder(ArrayNode patchList, List<JsonNode> order, String mergeKey) {
        int last = -1;
        for (JsonNode element : patchList) {
            if (element.isObject() && element.has(DIRECTIVE)) {
                continue;
            }
            if (!mergeKey.isEmpty() && element.isObject() && !element.has(mergeKey)) {
                throw noMergeKey(element, mergeKey);
            }
            int index = position(order, element, element.isObject() ? mergeKey : "");
            if (index < 0 || index < last) {
                throw internalError("The order in patch list:\n" + patchList + "\n doesn't match " + SET_ELEMENT_ORDER + " list:\n" + order + "\n");
            }
            last = index;
        }
    }

    private static ArrayNode deleteFromList(ArrayNode original, ArrayNode toDelete) {
        ArrayNode result = JsonNodeFactory.instance.arrayNode();
        for (JsonNode element : original) {
            boolean deleted = false;
            for (JsonNode candidate : toDelete) {
                deleted |= sameValue(element, candidate);
            }
            if (!deleted) {
                result.add(element);
            }
        }
        return result;
    }

    /**
     * A patch value taken as a whole (new key, replaced list) still loses its directives and nulls, as if merged
     * into nothing, so that no {@code $patch} or {@code $setElementOrder} ends up stored in the object.
     */
    private JsonNode stripDirectives(JsonNode value, Schema schema) {
        if (value.isObject()) {
            return mergeMap(JsonNodeFactory.instance.objectNode(), (ObjectNode) value, schema);
        }
        if (value.isArray()) {
            ArrayNode result = JsonNodeFactory.instance.arrayNode();
            Schema itemSchema = items(schema);
            for (JsonNode element : value) {
                if (element.isArray()) {
                    throw new StatusException(StatusReason.INVALID, 422, "lists of lists are not supported", null, null, null, List.of(), null);
                }
                if (element.isObject() && element.has(DIRECTIVE)) {
                    continue;
                }
                result.add(stripDirectives(element, itemSchema));
            }
            return result;
        }
        return value;
    }

    private static boolean elementsAreObjects(ArrayNode original, ArrayNode patch) {
        Boolean objects = null;
        for (JsonNode element : concat(original, patch)) {
            if (element.isArray()) {
                throw new StatusException(StatusReason.INVALID, 422, "lists of lists are not supported", null, null, null, List.of(), null);
            }
            boolean isObject = element.isObject();
            if (objects != null && objects != isObject) {
                throw internalError("mismatched types of elements in list: " + original + " and " + patch);
            }
            objects = isObject;
        }
        return objects != null && objects;
    }

    private static List<JsonNode> concat(ArrayNode first, ArrayNode second) {
        List<JsonNode> all = new ArrayList<>();
        first.forEach(all::add);
        second.forEach(all::add);
        return all;
    }

    private static int indexOf(List<JsonNode> list, String mergeKey, JsonNode value) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).isObject() && sameValue(list.get(i).get(mergeKey), value)) {
                return i;
            }
        }
        return -1;
    }

    /** JSON equality where 80 and 80L are the same number, as after Go's decoding. */
    private static boolean sameValue(JsonNode left, JsonNode right) {
        if (left == null || right == null) {
            return left == right;
        }
        if (left.isIntegralNumber() && right.isIntegralNumber()) {
            return left.bigIntegerValue().equals(right.bigIntegerValue());
        }
        if (left.isNumber() && right.isNumber()) {
            return left.decimalValue().compareTo(right.decimalValue()) == 0;
        }
        return left.equals(right);
    }

    /** The schema of a field's value; null when the field is not known. */
    private Schema child(Schema schema, String field) {
        if (schema instanceof Schema.Reference reference) {
            Definition definition = schemas.find(reference.definition()).orElse(null);
            if (definition != null && definition.kind() == DefinitionKind.OBJECT) {
                return definition.field(field).map(Field::schema).orElse(null);
            }
            return null;
        }
        if (schema instanceof Schema.MapOf map) {
            return map.values();
        }
        return null;
    }

    private FieldMetadata metadata(Schema schema, String field) {
        if (schema instanceof Schema.Reference reference) {
            return schemas.find(reference.definition())
                    .flatMap(definition -> definition.field(field))
                    .map(Field::metadata)
                    .orElse(FieldMetadata.NONE);
        }
        return FieldMetadata.NONE;
    }

    private static Schema items(Schema schema) {
        return schema instanceof Schema.ArrayOf array ? array.items() : null;
    }

    /** The strategy that decides merging ({@code merge}, {@code replace} or none); {@code retainKeys} only shapes patches. */
    private static String patchStrategy(FieldMetadata metadata) {
        if (metadata.hasPatchStrategy(MERGE)) {
            return MERGE;
        }
        if (metadata.hasPatchStrategy(REPLACE)) {
            return REPLACE;
        }
        return "";
    }

    private static String describe(Schema schema) {
        return schema instanceof Schema.Reference reference ? reference.definition() : "list";
    }

    private static List<String> fieldNames(ObjectNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            names.add(fields.next().getKey());
        }
        return names;
    }

    private static StatusException badRequest(String message) {
        return StatusException.badRequest(message);
    }

    private static StatusException internalError(String message) {
        return StatusException.internalError(message);
    }

    private static StatusException noMergeKey(JsonNode element, String mergeKey) {
        return internalError("map: " + element + " does not contain declared merge key: " + mergeKey);
    }
}
