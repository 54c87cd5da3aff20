package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.TreeMap;

/**
 * {@code metav1.LabelSelector} as upstream treats it: validation, matching against a label set and the
 * printed form ({@code app=web,tier in (a,b)}). A missing selector selects nothing; an empty one selects
 * everything. Stateless and thread-safe.
 */
public final class LabelSelectors {
    private LabelSelectors() {}

    /** One requirement of a parsed selector. */
    private record Requirement(String key, String operator, List<String> values) {
        boolean matches(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case "=" -> value != null && value.equals(values.get(0));
                case "in" -> value != null && values.contains(value);
                case "notin" -> value == null || !values.contains(value);
                case "exists" -> value != null;
                default -> value == null;
            };
        }

        String render() {
            return switch (operator) {
                case "=" -> key + "=" + values.get(0);
                case "in", "notin" -> key + " " + operator + " (" + String.join(",", new TreeSet<>(values)) + ")";
                case "exists" -> key;
                default -> "!" + key;
            };
        }
    }

    /** Upstream's {@code ValidateLabelSelector}; a missing selector is valid here (callers require it). */
    public static void validate(FieldErrors errors, JsonNode selector, String field) {
        if (selector == null || selector.isMissingNode() || selector.isNull()) {
            return;
        }
        Validators.labels(errors, Json.stringMap(selector, "matchLabels"), field + ".matchLabels");
        List<JsonNode> expressions = Json.elements(selector, "matchExpressions");
        for (int i = 0; i < expressions.size(); i++) {
            JsonNode expression = expressions.get(i);
            String path = field + ".matchExpressions[" + i + "]";
            String operator = Json.string(expression, "operator");
            int valueCount = Json.size(expression, "values");
            switch (operator) {
                case "In", "NotIn" -> {
                    if (valueCount == 0) {
                        errors.add(FieldError.required(path + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
                    }
                }
                case "Exists", "DoesNotExist" -> {
                    if (valueCount > 0) {
                        errors.add(FieldError.forbidden(path + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
                    }
                }
                default -> errors.add(FieldError.invalid(path + ".operator", operator, "not a valid selector operator"));
            }
            String key = Json.string(expression, "key");
            for (String message : Validators.qualifiedName(key)) {
                errors.add(FieldError.invalid(path + ".key", key, message));
            }
            List<JsonNode> values = Json.elements(expression, "values");
            for (int valueIndex = 0; valueIndex < values.size(); valueIndex++) {
                String value = values.get(valueIndex).asText();
                for (String message : Validators.labelValue(value)) {
                    errors.add(FieldError.invalid(path + ".values[" + valueIndex + "]", value, message));
                }
            }
        }
    }

    /** Whether the selector has no requirement at all (present but empty). */
    public static boolean isEmpty(JsonNode selector) {
        return Json.size(selector, "matchLabels") + Json.size(selector, "matchExpressions") == 0;
    }

    /**
     * Parses the selector as upstream's {@code LabelSelectorAsSelector}: empty when the selector cannot be
     * converted (an unknown operator, a malformed key or value).
     */
    private static Optional<List<Requirement>> requirements(JsonNode selector) {
        List<Requirement> requirements = new ArrayList<>();
        for (Map.Entry<String, String> entry : Json.stringMap(selector, "matchLabels").entrySet()) {
            if (!Validators.qualifiedName(entry.getKey()).isEmpty() || !Validators.labelValue(entry.getValue()).isEmpty()) {
                return Optional.empty();
            }
            requirements.add(new Requirement(entry.getKey(), "=", List.of(entry.getValue())));
        }
        for (JsonNode expression : Json.elements(selector, "matchExpressions")) {
            String key = Json.string(expression, "key");
            if (!Validators.qualifiedName(key).isEmpty()) {
                return Optional.empty();
            }
            List<String> values = Json.elements(expression, "values").stream().map(JsonNode::asText).toList();
            String operator = switch (Json.string(expression, "operator")) {
                case "In" -> "in";
                case "NotIn" -> "notin";
                case "Exists" -> "exists";
                case "DoesNotExist" -> "!";
                default -> null;
            };
            boolean needsValues = "in".equals(operator) || "notin".equals(operator);
            if (operator == null || needsValues == values.isEmpty()) {
                return Optional.empty();
            }
            requirements.add(new Requirement(key, operator, values));
        }
        requirements.sort(Comparator.comparing(Requirement::key));
        return Optional.of(requirements);
    }

    /** Whether the selector can be converted to a label selector at all. */
    public static boolean isConvertible(JsonNode selector) {
        return !present(selector) || requirements(selector).isPresent();
    }

    /**
     * Whether the selector selects the labels, as upstream: a missing selector selects nothing, an empty one
     * everything, and an unconvertible one is reported as empty here (callers report the error themselves).
     */
    public static Optional<Boolean> matches(JsonNode selector, Map<String, String> labels) {
        if (!present(selector)) {
            return Optional.of(false);
        }
        return requirements(selector).map(list -> list.stream().allMatch(requirement -> requirement.matches(labels)));
    }

    /** The selector's string form, as {@code selector.String()}: empty for a missing or empty selector. */
    public static Optional<String> render(JsonNode selector) {
        if (!present(selector)) {
            return Optional.of("");
        }
        return requirements(selector).map(list -> String.join(",", list.stream().map(Requirement::render).toList()));
    }

    /** Upstream's {@code metav1.FormatLabelSelector}: {@code <none>} when empty, {@code <error>} when invalid. */
    public static String format(JsonNode selector) {
        return render(selector).map(text -> text.isEmpty() ? "<none>" : text).orElse("<error>");
    }

    /** Upstream's {@code labels.FormatLabels}: sorted {@code k=v} pairs or {@code <none>}. */
    public static String formatLabels(Map<String, String> labels) {
        if (labels.isEmpty()) {
            return "<none>";
        }
        List<String> pairs = new ArrayList<>();
        new TreeMap<>(labels).forEach((key, value) -> pairs.add(key + "=" + value));
        return String.join(",", pairs);
    }

    /** Upstream's {@code labels.SelectorFromSet(...).String()} for map selectors (replication controllers). */
    public static String renderSet(Map<String, String> set) {
        List<String> pairs = new ArrayList<>();
        new TreeMap<>(set).forEach((key, value) -> pairs.add(key + "=" + value));
        return String.join(",", pairs);
    }

    private static boolean present(JsonNode selector) {
        return selector != null && !selector.isMissingNode() && !selector.isNull();
    }
}
