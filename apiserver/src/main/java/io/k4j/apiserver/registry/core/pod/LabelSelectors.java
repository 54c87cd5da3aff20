package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.apiserver.registry.core.Trees;
import java.util.Map;

/**
 * Matches a {@code metav1.LabelSelector} against labels, as {@code LabelSelectorAsSelector}: an absent selector
 * matches nothing, an empty one everything. A selector with an unknown operator matches nothing.
 */
final class LabelSelectors {
    private LabelSelectors() {}

    static boolean matches(JsonNode selector, JsonNode labels) {
        if (selector == null || !selector.isObject()) {
            return false;
        }
        for (Map.Entry<String, JsonNode> entry : Trees.at(selector, "matchLabels").properties()) {
            if (!entry.getValue().asText().equals(Trees.text(labels, entry.getKey()))) {
                return false;
            }
        }
        for (JsonNode expression : Trees.elements(selector, "matchExpressions")) {
            String key = Trees.text(expression, "key");
            boolean present = labels.has(key);
            String value = Trees.text(labels, key);
            boolean inValues = false;
            for (JsonNode candidate : Trees.elements(expression, "values")) {
                inValues |= present && candidate.asText().equals(value);
            }
            boolean matched = switch (Trees.text(expression, "operator")) {
                case "In" -> inValues;
                case "NotIn" -> !inValues;
                case "Exists" -> present;
                case "DoesNotExist" -> !present;
                default -> false;
            };
            if (!matched) {
                return false;
            }
        }
        return true;
    }
}
