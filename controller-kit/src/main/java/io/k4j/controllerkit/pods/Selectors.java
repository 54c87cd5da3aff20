package io.k4j.controllerkit.pods;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.k4j.api.selection.LabelSelector;

/** Converts fabric8's label selectors into k4j's, with upstream's {@code LabelSelectorAsSelector} rules. */
public final class Selectors {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Selectors() {}

    /**
     * A {@code null} selector selects nothing and an empty one everything, as upstream.
     *
     * @throws io.k4j.api.selection.SelectorParseException when a requirement is invalid
     */
    public static LabelSelector of(io.fabric8.kubernetes.api.model.LabelSelector selector) {
        if (selector == null) {
            return LabelSelector.nothing();
        }
        JsonNode json = MAPPER.valueToTree(selector);
        return LabelSelector.fromJson(json);
    }
}
