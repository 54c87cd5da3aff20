package io.k4j.api.patch;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Deep equality of JSON values as upstream compares decoded JSON: numbers by value ({@code 1}, {@code 1.0} and
 * {@code 1e0} are equal, as they are all float64 in Go), objects regardless of member order. Stateless and
 * thread-safe.
 */
final class JsonEquality {
    private JsonEquality() {}

    static boolean equal(JsonNode left, JsonNode right) {
        if (left.isNumber() && right.isNumber()) {
            return left.decimalValue().compareTo(right.decimalValue()) == 0;
        }
        if (left.getNodeType() != right.getNodeType()) {
            return false;
        }
        if (left.isObject()) {
            if (left.size() != right.size()) {
                return false;
            }
            for (Map.Entry<String, JsonNode> property : left.properties()) {
                JsonNode other = right.get(property.getKey());
                if (other == null || !equal(property.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (left.isArray()) {
            if (left.size() != right.size()) {
                return false;
            }
            Iterator<JsonNode> others = right.elements();
            for (JsonNode element : left) {
                if (!equal(element, others.next())) {
                    return false;
                }
            }
            return true;
        }
        return left.equals(right);
    }
}
