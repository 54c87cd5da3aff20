package io.k4j.api.apply;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The total order on JSON values structured-merge-diff uses to sort keys and set entries: null, then numbers (by
 * value), strings, booleans, lists and maps. Thread-safe (stateless).
 */
final class Values {
    private Values() {}

    static int compare(JsonNode left, JsonNode right) {
        int rank = Integer.compare(rank(left), rank(right));
        if (rank != 0) {
            return rank;
        }
        return switch (rank(left)) {
            case 0 -> 0;
            case 1 -> left.isIntegralNumber() && right.isIntegralNumber()
                    ? left.bigIntegerValue().compareTo(right.bigIntegerValue())
                    : Double.compare(left.asDouble(), right.asDouble());
            case 2 -> left.asText().compareTo(right.asText());
            case 3 -> Boolean.compare(left.asBoolean(), right.asBoolean());
            case 4 -> compareLists(left, right);
            default -> compareMaps(left, right);
        };
    }

    /**
     * One call for the node's type: the {@code isX()} tests each make it again, at call sites shared by all of
     * Jackson's callers, whose changing receiver types keep C2 recompiling the methods that inline them.
     */
    private static int rank(JsonNode value) {
        if (value == null) {
            return 0;
        }
        return switch (value.getNodeType()) {
            case NULL, MISSING -> 0;
            case NUMBER -> 1;
            case STRING, BINARY -> 2;
            case BOOLEAN -> 3;
            case ARRAY -> 4;
            case OBJECT, POJO -> 5;
        };
    }

    private static int compareLists(JsonNode left, JsonNode right) {
        for (int i = 0; ; i++) {
            if (i >= left.size() || i >= right.size()) {
                return Integer.compare(left.size(), right.size());
            }
            int byItem = compare(left.get(i), right.get(i));
            if (byItem != 0) {
                return byItem;
            }
        }
    }

    private static int compareMaps(JsonNode left, JsonNode right) {
        List<String> leftNames = sortedNames(left);
        List<String> rightNames = sortedNames(right);
        for (int i = 0; ; i++) {
            if (i >= leftNames.size() || i >= rightNames.size()) {
                return Integer.compare(leftNames.size(), rightNames.size());
            }
            int byName = leftNames.get(i).compareTo(rightNames.get(i));
            if (byName != 0) {
                return byName;
            }
            int byValue = compare(left.get(leftNames.get(i)), right.get(rightNames.get(i)));
            if (byValue != 0) {
                return byValue;
            }
        }
    }

    private static List<String> sortedNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        names.sort(null);
        return names;
    }

    /** Equality as the order sees it: numbers by value whatever node type holds them. */
    static boolean equal(JsonNode left, JsonNode right) {
        return compare(left, right) == 0;
    }

    /**
     * Equality of the values with their null-valued object fields left out (as Go's typed objects drop them), without
     * copying them to leave those out.
     */
    static boolean equalWithoutNullFields(JsonNode left, JsonNode right) {
        if (left.isObject() && right.isObject()) {
            int count = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = left.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                if (entry.getValue().isNull()) {
                    continue;
                }
                count++;
                JsonNode other = right.get(entry.getKey());
                if (other == null || other.isNull() || !equalWithoutNullFields(entry.getValue(), other)) {
                    return false;
                }
            }
            for (JsonNode value : right) {
                if (!value.isNull()) {
                    count--;
                }
            }
            return count == 0;
        }
        if (left.isArray() && right.isArray()) {
            if (left.size() != right.size()) {
                return false;
            }
            for (int i = 0; i < left.size(); i++) {
                if (!equalWithoutNullFields(left.get(i), right.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return compare(left, right) == 0;
    }
}
