package io.k4j.apiserver.authorization.rbac;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Matches {@code metav1.LabelSelector} JSON ({@code matchLabels} and {@code matchExpressions} with In, NotIn,
 * Exists, DoesNotExist) against an object's labels. An empty selector matches everything, as upstream's
 * {@code LabelSelectorAsSelector}. Stateless and thread-safe.
 */
final class LabelSelectors {
    private LabelSelectors() {}

    static boolean matches(JsonNode selector, JsonNode labels) {
        Iterator<Map.Entry<String, JsonNode>> matchLabels = selector.path("matchLabels").fields();
        while (matchLabels.hasNext()) {
            Map.Entry<String, JsonNode> entry = matchLabels.next();
            if (!labels.has(entry.getKey()) || !labels.get(entry.getKey()).asText().equals(entry.getValue().asText())) {
                return false;
            }
        }
        for (JsonNode expression : selector.path("matchExpressions")) {
            String key = expression.path("key").asText();
            boolean present = labels.has(key);
            String value = present ? labels.get(key).asText() : null;
            boolean inValues = false;
            for (JsonNode candidate : expression.path("values")) {
                if (candidate.asText().equals(value)) {
                    inValues = true;
                }
            }
            boolean ok = switch (expression.path("operator").asText()) {
                case "In" -> present && inValues;
                case "NotIn" -> !present || !inValues;
                case "Exists" -> present;
                case "DoesNotExist" -> !present;
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
