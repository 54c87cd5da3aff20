package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import io.k4j.apiserver.registry.generic.HumanDuration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cell formats upstream's server-side printers use: ages as {@code HumanDuration} ({@code 5m}, {@code 3h12m},
 * {@code 2d}), label maps as {@code k=v,k2=v2}. Stateless and thread-safe.
 */
public final class Printing {
    public static final String NONE = "<none>";
    public static final String UNKNOWN = HumanDuration.UNKNOWN;

    private Printing() {}

    /** The time since a timestamp as upstream's {@code translateTimestampSince}: {@code <unknown>} when absent. */
    public static String since(JsonNode timestamp, Instant now) {
        if (timestamp == null || !timestamp.isTextual()) {
            return UNKNOWN;
        }
        return HumanDuration.since(timestamp.asText(), now);
    }

    /** A label map as upstream's {@code labels.FormatLabels}: sorted {@code k=v} pairs, {@code <none>} when empty. */
    public static String formatLabels(JsonNode labels) {
        if (labels == null || !labels.isObject() || labels.isEmpty()) {
            return NONE;
        }
        Map<String, String> sorted = new TreeMap<>();
        labels.properties().forEach(entry -> sorted.put(entry.getKey(), entry.getValue().asText()));
        StringBuilder result = new StringBuilder();
        sorted.forEach((key, value) -> result.append(result.isEmpty() ? "" : ",").append(key).append('=').append(value));
        return result.toString();
    }

    /** The container names and images of a pod spec, comma-separated, as upstream's {@code layoutContainerCells}. */
    public static String[] containerCells(JsonNode podSpec) {
        List<String> names = new ArrayList<>();
        List<String> images = new ArrayList<>();
        for (JsonNode container : Trees.elements(podSpec, "containers")) {
            names.add(Trees.text(container, "name"));
            images.add(Trees.text(container, "image"));
        }
        return new String[] {String.join(",", names), String.join(",", images)};
    }
}
