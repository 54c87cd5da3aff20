package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.codec.GoStrings;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code metav1.LabelSelector} objects as strategies use them, on top of {@link LabelSelector}: validation,
 * matching against a label set and the printed form ({@code app=web,tier in (a,b)}). A missing selector
 * selects nothing; an empty one selects everything. Stateless and thread-safe.
 */
public final class LabelSelectors {
    private LabelSelectors() {}

    /** Upstream's {@code ValidateLabelSelector}; a missing selector is valid here (callers require it). */
    public static void validate(FieldErrors errors, JsonNode selector, String field) {
        errors.addAll(LabelSelector.validate(selector, field));
    }

    /**
     * Upstream's {@code ValidateImmutableField} on a {@code spec.selector}: a changed selector is reported with the
     * new value printed as Go's {@code %#v} prints a {@code metav1.LabelSelector}, which is what kubectl shows, e.g.
     * {@code v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}.
     */
    public static void immutable(FieldErrors errors, JsonNode newSelector, JsonNode oldSelector, String field) {
        if (!Json.semanticEquals(newSelector, oldSelector)) {
            errors.add(FieldError.invalid(field, new Validators.Literal(goLiteral(newSelector)), Validators.IMMUTABLE));
        }
    }

    /** A selector as Go's {@code %#v} prints a {@code metav1.LabelSelector} value; {@code null} when absent. */
    public static String goLiteral(JsonNode selector) {
        if (selector == null || selector.isNull() || selector.isMissingNode()) {
            return "null";
        }
        StringBuilder text = new StringBuilder("v1.LabelSelector{MatchLabels:");
        JsonNode matchLabels = selector.get("matchLabels");
        if (matchLabels == null || matchLabels.isNull()) {
            text.append("map[string]string(nil)");
        } else {
            TreeMap<String, String> sorted = new TreeMap<>();
            matchLabels.properties().forEach(entry -> sorted.put(entry.getKey(), entry.getValue().asText()));
            text.append("map[string]string{");
            boolean first = true;
            for (Map.Entry<String, String> entry : sorted.entrySet()) {
                text.append(first ? "" : ", ").append(GoStrings.quote(entry.getKey())).append(':').append(GoStrings.quote(entry.getValue()));
                first = false;
            }
            text.append('}');
        }
        text.append(", MatchExpressions:");
        JsonNode expressions = selector.get("matchExpressions");
        if (expressions == null || expressions.isNull()) {
            text.append("[]v1.LabelSelectorRequirement(nil)");
        } else {
            text.append("[]v1.LabelSelectorRequirement{");
            for (int index = 0; index < expressions.size(); index++) {
                JsonNode expression = expressions.get(index);
                text.append(index == 0 ? "" : ", ")
                        .append("v1.LabelSelectorRequirement{Key:").append(GoStrings.quote(expression.path("key").asText()))
                        .append(", Operator:").append(GoStrings.quote(expression.path("operator").asText()))
                        .append(", Values:");
                JsonNode values = expression.get("values");
                if (values == null || values.isNull()) {
                    text.append("[]string(nil)");
                } else {
                    text.append("[]string{");
                    for (int valueIndex = 0; valueIndex < values.size(); valueIndex++) {
                        text.append(valueIndex == 0 ? "" : ", ").append(GoStrings.quote(values.get(valueIndex).asText()));
                    }
                    text.append('}');
                }
                text.append('}');
            }
            text.append('}');
        }
        return text.append('}').toString();
    }

    /** Whether the selector has no requirement at all (present but empty). */
    public static boolean isEmpty(JsonNode selector) {
        return Json.size(selector, "matchLabels") + Json.size(selector, "matchExpressions") == 0;
    }

    /**
     * Converts the selector as upstream's {@code LabelSelectorAsSelector}: empty when it cannot be converted (an
     * unknown operator, a malformed key or value).
     */
    private static Optional<LabelSelector> convert(JsonNode selector) {
        try {
            return Optional.of(LabelSelector.fromJson(selector));
        } catch (SelectorParseException e) {
            return Optional.empty();
        }
    }

    /** Whether the selector can be converted to a label selector at all. */
    public static boolean isConvertible(JsonNode selector) {
        return convert(selector).isPresent();
    }

    /**
     * Whether the selector selects the labels, as upstream: a missing selector selects nothing, an empty one
     * everything, and an unconvertible one is reported as empty here (callers report the error themselves).
     */
    public static Optional<Boolean> matches(JsonNode selector, Map<String, String> labels) {
        return convert(selector).map(converted -> converted.matches(labels));
    }

    /** The selector's string form, as {@code selector.String()}: empty for a missing or empty selector. */
    public static Optional<String> render(JsonNode selector) {
        return convert(selector).map(LabelSelector::toString);
    }

    /** Upstream's {@code metav1.FormatLabelSelector}: {@code <none>} when empty, {@code <error>} when invalid. */
    public static String format(JsonNode selector) {
        return render(selector).map(text -> text.isEmpty() ? "<none>" : text).orElse("<error>");
    }


    /** Upstream's {@code labels.SelectorFromSet(...).String()} for map selectors (replication controllers). */
    public static String renderSet(Map<String, String> set) {
        List<String> pairs = new ArrayList<>();
        new TreeMap<>(set).forEach((key, value) -> pairs.add(key + "=" + value));
        return String.join(",", pairs);
    }
}
