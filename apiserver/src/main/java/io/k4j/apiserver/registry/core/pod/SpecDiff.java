package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A short description of how two specs differ, appended to "may not change" messages the way upstream appends its
 * object diff: one {@code -} line with the old value and one {@code +} line with the new value per changed field.
 */
public final class SpecDiff {
    private SpecDiff() {}

    public static String describe(String typeName, JsonNode oldValue, JsonNode newValue) {
        List<String> lines = new ArrayList<>();
        collect("", oldValue, newValue, lines);
        StringBuilder result = new StringBuilder("  ").append(typeName).append("{\n");
        lines.forEach(line -> result.append(line).append('\n'));
        return result.append("  }\n").toString();
    }

    private static void collect(String path, JsonNode oldValue, JsonNode newValue, List<String> lines) {
        JsonNode left = oldValue == null ? MissingNode.getInstance() : oldValue;
        JsonNode right = newValue == null ? MissingNode.getInstance() : newValue;
        if (left.equals(right)) {
            return;
        }
        if (left.isObject() && right.isObject()) {
            Set<String> names = new LinkedHashSet<>();
            left.fieldNames().forEachRemaining(names::add);
            right.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                collect(path.isEmpty() ? name : path + "." + name, left.get(name), right.get(name), lines);
            }
            return;
        }
        if (left.isArray() && right.isArray() && left.size() == right.size()) {
            Iterator<JsonNode> leftElements = left.elements();
            Iterator<JsonNode> rightElements = right.elements();
            for (int index = 0; leftElements.hasNext(); index++) {
                collect(path + "[" + index + "]", leftElements.next(), rightElements.next(), lines);
            }
            return;
        }
        if (!left.isMissingNode()) {
            lines.add("- \t" + path + ": " + left);
        }
        if (!right.isMissingNode()) {
            lines.add("+ \t" + path + ": " + right);
        }
    }
}
