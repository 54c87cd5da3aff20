package io.k4j.apiserver.registry.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
    public static final String UNKNOWN = "<unknown>";

    private Printing() {}

    /** The time since a timestamp as upstream's {@code translateTimestampSince}: {@code <unknown>} when absent. */
    public static String since(JsonNode timestamp, Instant now) {
        if (timestamp == null || !timestamp.isTextual() || timestamp.asText().isEmpty()) {
            return UNKNOWN;
        }
        try {
            return humanDuration(Duration.between(Instant.parse(timestamp.asText()), now));
        } catch (DateTimeParseException e) {
            return UNKNOWN;
        }
    }

    /**
     * A duration rounded the way {@code kubectl} shows ages: seconds up to two minutes, then minutes (with seconds
     * below ten minutes), hours (with minutes below eight hours), days and years. Slightly negative durations (clock
     * skew up to a second) count as now.
     */
    public static String humanDuration(Duration duration) {
        long seconds = duration.getSeconds();
        if (seconds < -1) {
            return "<invalid>";
        }
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long remainder = seconds % 60;
            return remainder == 0 ? minutes + "m" : minutes + "m" + remainder + "s";
        }
        if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long remainder = minutes % 60;
            return remainder == 0 ? hours + "h" : hours + "h" + remainder + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            long remainder = hours % 24;
            return remainder == 0 ? hours / 24 + "d" : hours / 24 + "d" + remainder + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long days = (hours / 24) % 365;
            return days == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + days + "d";
        }
        return hours / 24 / 365 + "y";
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
