package io.k4j.apiserver.registry.groups;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.api.selection.LabelSelector;
import io.k4j.api.selection.SelectorParseException;
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
